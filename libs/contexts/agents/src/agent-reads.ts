// The Agent and its Space as the gate reads them on nearly every request (agentById, spaceOf: a turn, a search, a
// Knowledge or memory read), kept in memory per read store so that asking costs no read-store query. AgentReadsKept
// (an AgentsModule provider) sets them up for the app's read store; where it has not (a unit test's bare read store),
// every read goes to the store. Kept as ProjectionCache keeps anything: while the agents (or spaces) projection is live
// in this process, until it applies a batch here (an Agent or Space event: a turn's events never drop them); not kept
// where another process runs it. A kept view is frozen: every caller shares it.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ProjectionCache, ProjectionRunner } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { SPACES, SPACES_READ_MODEL, type SpaceView } from '#spaces';
import { AGENTS, AGENTS_READ_MODEL, type AgentView } from './agents.read-model.js';

interface Kept {
  readonly agents: ProjectionCache<AgentView>;
  readonly spaces: ProjectionCache<SpaceView>;
}

const keptFor = new WeakMap<ReadStore, Kept>();

/** The document, frozen; `undefined` when there is none (never kept: asked again). */
async function readFrozen<T extends object>(
  readStore: ReadStore,
  collection: string,
  id: string,
): Promise<T | undefined> {
  const view = await readStore.reader<T & { id: string }>(collection).get(id);
  if (!view) return undefined;
  for (const value of Object.values(view))
    if (typeof value === 'object' && value !== null) Object.freeze(value);
  return Object.freeze(view);
}

/** The Agent's read-model document, kept where the app keeps them. */
export function readAgent(readStore: ReadStore, agentId: string): Promise<AgentView | undefined> {
  const read = () => readFrozen<AgentView>(readStore, AGENTS, agentId);
  return keptFor.get(readStore)?.agents.get(agentId, read) ?? read();
}

/** The Space's read-model document (with its members), kept where the app keeps them. */
export function readSpace(readStore: ReadStore, spaceId: string): Promise<SpaceView | undefined> {
  const read = () => readFrozen<SpaceView>(readStore, SPACES, spaceId);
  return keptFor.get(readStore)?.spaces.get(spaceId, read) ?? read();
}

/** Keeps the app's Agent and Space reads (see the file's header). */
@Injectable()
export class AgentReadsKept {
  constructor(@Inject(READ_STORE) readStore: ReadStore, @Optional() runner?: ProjectionRunner) {
    keptFor.set(readStore, {
      agents: new ProjectionCache(runner, AGENTS_READ_MODEL.projection, { remoteTtlMs: 0 }),
      spaces: new ProjectionCache(runner, SPACES_READ_MODEL.projection, { remoteTtlMs: 0 }),
    });
  }
}
