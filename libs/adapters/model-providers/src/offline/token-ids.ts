// Token ids a client sent in place of text (the common embeddings format allows `[[15339, 1917]]`), read back as text
// for the offline embedding model. Real upstreams get the ids as they are.
import { createRequire } from 'node:module';
import type { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { ValidationError } from '#kernel/thread-kit';

let clientEncoding: GptEncoding | undefined;

/**
 * The text of token ids a client sent for the offline embedding model. Clients tokenize with tiktoken, which falls
 * back to cl100k_base for a model it does not know (LangChain does so by default), so that is the vocabulary read.
 * An id outside it is a 400 naming `input`.
 */
export const textOfTokenIds = (tokens: readonly number[]): string => {
  clientEncoding ??= (
    createRequire(import.meta.url)('gpt-tokenizer/encoding/cl100k_base') as { default: GptEncoding }
  ).default;
  try {
    return clientEncoding.decode(tokens);
  } catch {
    throw new ValidationError(
      'invalid_tokens',
      'input holds token ids outside the cl100k_base vocabulary',
      'input',
    );
  }
};
