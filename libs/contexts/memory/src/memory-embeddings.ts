// Embeddings of memory texts for recall and de-duplication, with the instance's embedding model through the
// ModelGateway (usage recorded with the conversation when there is one). Vectors of stored memories are cached in
// this process by memory version (bounded, least recently used out); they never reach a store, so erasing a memory
// leaves no vector of it behind.
import { Injectable } from '@nestjs/common';
import type { CallScope } from '#model-gateway';
import { ModelGateway } from '#model-gateway';

const CACHE = 20_000;

@Injectable()
export class MemoryEmbeddings {
  private readonly cache = new Map<string, number[]>();

  constructor(private readonly gateway: ModelGateway) {}

  /** One vector per text; `keys` (memory id and version) let stored memories' vectors be reused. */
  async embed(
    scope: CallScope,
    texts: readonly string[],
    signal: AbortSignal,
    keys: readonly (string | null)[] = [],
  ): Promise<number[][]> {
    const vectors: (number[] | undefined)[] = texts.map((_text, i) => {
      const key = keys[i];
      const hit = key ? this.cache.get(key) : undefined;
      if (hit && key) {
        this.cache.delete(key);
        this.cache.set(key, hit);
      }
      return hit;
    });
    const missing = texts.flatMap((text, i) => (vectors[i] ? [] : [{ text, i }]));
    if (missing.length > 0) {
      const model = this.gateway.registry.defaultModel('embedding');
      if (!model) throw new Error('this instance has no embedding model');
      const result = await this.gateway.embed(
        scope,
        model,
        missing.map((item) => item.text),
        signal,
      );
      missing.forEach((item, n) => {
        const vector = result.vectors[n]!;
        vectors[item.i] = vector;
        const key = keys[item.i];
        if (key) {
          this.cache.set(key, vector);
          if (this.cache.size > CACHE) this.cache.delete(this.cache.keys().next().value!);
        }
      });
    }
    return vectors as number[][];
  }
}
