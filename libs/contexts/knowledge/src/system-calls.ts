// Model calls Knowledge makes on its own (ingestion, re-indexing, summary builds) work for nobody's key: they are
// recorded as the platform's own usage, against the Agent they serve when there is one.
import { PLATFORM_USAGE_KEY } from '#access';
import type { CallScope, ModelGateway } from '#model-gateway';

const EMBED_BATCH = 64;

/** `spaceId`: the Space whose Knowledge the call serves (its spend limit), when there is no Agent. */
export const systemScope = (agentId: string | null, correlationId: string, spaceId?: string): CallScope => ({
  apiKey: PLATFORM_USAGE_KEY,
  userId: 'system',
  agentId,
  surface: 'core',
  correlationId,
  ...(spaceId ? { spaceId } : {}),
});

/** Embeds texts in batches with the instance's embedding model. */
export async function embedInBatches(
  gateway: ModelGateway,
  scope: CallScope,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<number[][]> {
  const model = gateway.registry.defaultModel('embedding')!;
  const vectors: number[][] = [];
  for (let from = 0; from < texts.length; from += EMBED_BATCH) {
    const timeout = AbortSignal.timeout(model.timeoutMs);
    const result = await gateway.embed(
      scope,
      model,
      texts.slice(from, from + EMBED_BATCH),
      signal ? AbortSignal.any([signal, timeout]) : timeout,
    );
    vectors.push(...result.vectors);
  }
  return vectors;
}
