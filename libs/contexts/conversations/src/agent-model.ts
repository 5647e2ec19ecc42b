// Which chat model an Agent's call uses: the one the request names (a configured chat model, as GET
// /llm/{agentId}/models lists them), or the Agent's own. Shared by conversations and the generate endpoints.
import type { AgentView } from '#agents';
import type { ModelGateway } from '#model-gateway';
import { PlatformError } from '#kernel';
import type { ModelConfig } from '#model-providers';

export function agentChatModel(
  gateway: ModelGateway,
  agent: AgentView,
  requested: string | undefined,
): ModelConfig {
  if (requested !== undefined) return gateway.resolve(requested, 'chat');
  const model = gateway.registry.get(agent.model);
  if (model?.kind !== 'chat')
    throw new PlatformError(
      'not_found',
      'model_not_found',
      `the Agent's model '${agent.model}' is not a chat model configured on this instance; ` +
        'send `model` to use another one (GET /llm/{agentId}/models lists them)',
    );
  return model;
}

/** The Agent's sampling controls as sent upstream: a disabled one (null) is left out, never sent as null. */
export const agentSampling = (agent: Pick<AgentView, 'temperature' | 'topP' | 'topK'>) => ({
  ...(agent.temperature !== null ? { temperature: agent.temperature } : {}),
  ...(agent.topP !== null ? { top_p: agent.topP } : {}),
  ...(agent.topK !== null ? { top_k: agent.topK } : {}),
});
