// The bounds every parse runs under. A document over any of them fails (`too_large` or `timeout`) instead of
// exhausting the service: the child process that parses it is stopped, the api carries on.
import { IngestionError } from './ingestion-error.js';

export interface ParseLimits {
  /** Largest document accepted, in bytes. */
  readonly maxBytes: number;
  /** Most characters of extracted text (a small file can unpack into a great deal of text). */
  readonly maxChars: number;
  readonly maxPdfPages: number;
  /** Wall-clock time one parse may take, in milliseconds (its CPU time is bounded by it too: one thread). */
  readonly timeoutMs: number;
  /**
   * Memory of the whole child process a parse runs in, in MiB: the JS heap and everything outside it (Buffers,
   * ArrayBuffers, native allocations). A parse that needs more fails `too_large`.
   */
  readonly maxMemoryMb: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxBytes: 25 * 1024 * 1024,
  maxChars: 5_000_000,
  maxPdfPages: 2_000,
  timeoutMs: 30_000,
  maxMemoryMb: 768,
};

/** The checks that need no parsing: done before a worker is started, and again inside it. */
export const checkSize = (bytes: Uint8Array, limits: ParseLimits): void => {
  if (bytes.byteLength === 0) throw new IngestionError('empty', 'the document is empty');
  if (bytes.byteLength > limits.maxBytes)
    throw new IngestionError(
      'too_large',
      `the document is ${bytes.byteLength} bytes, over the limit of ${limits.maxBytes}`,
    );
};
