// Why a document could not be ingested. Every failure of sniffing or parsing ends as one of these reasons, so the
// caller records `DocumentFailed { reason, message }` and never sees a parser's own exception type.
export const INGESTION_FAILURE_REASONS = [
  'unsupported_type',
  'too_large',
  'parse_failed',
  'timeout',
  /** The process parsing it died (killed by the system, a crash in a parser's native code). */
  'parser_crashed',
  'empty',
  /** The stored bytes are gone from the blob store. */
  'content_missing',
] as const;
export type IngestionFailureReason = (typeof INGESTION_FAILURE_REASONS)[number];

export class IngestionError extends Error {
  override readonly name = 'IngestionError';

  constructor(
    readonly reason: IngestionFailureReason,
    message: string,
  ) {
    super(message);
  }
}

export const isIngestionFailureReason = (value: unknown): value is IngestionFailureReason =>
  typeof value === 'string' && (INGESTION_FAILURE_REASONS as readonly string[]).includes(value);

/** What V8 and Node say when an allocation is refused. */
export const OUT_OF_MEMORY =
  /allocation failed|failed to allocate|invalid array length|invalid string length|out of memory|heap limit/i;

/** Any error thrown while parsing, as an IngestionError: our own pass through, a library's becomes `parse_failed`. */
export const toIngestionError = (error: unknown): IngestionError => {
  if (error instanceof IngestionError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // An allocation refused under the parse process's memory limit surfaces as a RangeError inside a library.
  if (OUT_OF_MEMORY.test(message))
    return new IngestionError('too_large', 'parsing needed more memory than a document may use');
  return new IngestionError('parse_failed', message.length > 0 ? message : 'the parser failed');
};
