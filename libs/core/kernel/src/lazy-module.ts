// Heavy dependencies loaded on first use rather than at start-up: a process that never calls an upstream, never
// checks a JSON Schema, never pays their memory (undici ~27 MB, openai ~15 MB, ajv ~13 MB of RSS, measured) or their
// load time. They are CommonJS packages, so `require` loads them synchronously at the first call.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** A function returning the module, required once, at its first call. */
export function lazyModule<T>(specifier: string): () => T {
  let module: T | undefined;
  return () => (module ??= load(specifier) as T);
}
