// The section-summary index of an Agent as the routes answer it: status, serving tree and latest build.
import type { SummaryIndexView } from './summary-index.read-model.js';

export const toSummaryIndexStatus = (agentId: string, view: SummaryIndexView | null) => {
  const building = view?.build?.state === 'requested' || view?.build?.state === 'running';
  return {
    agentId,
    status: building ? 'building' : view?.serving ? 'ready' : 'none',
    serving: view?.serving
      ? {
          buildId: view.serving.buildId,
          model: view.serving.model,
          nodeCount: view.serving.nodeCount,
          levels: view.serving.levels,
          leafCount: view.serving.leafCount,
          documentCount: view.serving.documentIds.length,
          builtAt: view.serving.builtAt,
        }
      : null,
    build: view?.build ?? null,
  };
};

export const CONFLICT_RUNNING = {
  status: 409,
  description: '`summary_build_running`: a build is already under way (cancel it first)',
} as const;
