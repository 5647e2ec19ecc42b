// The parsing and chunking stage of Knowledge ingestion: pure functions of a document's bytes (no HTTP, no events,
// no storage). sniffType → parseDocument → chunkDocument, or prepareDocument for all three in a bounded child process;
// contentHash names the bytes.
export {
  chunkDocument,
  DEFAULT_CHUNK_OPTIONS,
  MIN_CHUNK_TOKENS,
  type Chunk,
  type ChunkOptions,
} from './chunk.js';
export { contentHash } from './content-hash.js';
export {
  INGESTION_FAILURE_REASONS,
  IngestionError,
  isIngestionFailureReason,
  type IngestionFailureReason,
} from './ingestion-error.js';
export { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
export { parseDocument, PARSES_IN_CHILD_PROCESS, prepareDocument, type PreparedDocument } from './parse.js';
export { BLOCK_TYPES, type Block, type BlockType, type ParsedDocument } from './parsed-document.js';
export { DOCUMENT_KINDS, MIME_TYPES, sniffType, type DocumentKind, type SniffedType } from './sniff.js';
