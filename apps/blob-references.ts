// The composition root's one list of what keeps blobs alive: every context that stores blobs declares its references
// here, and `cli blobs gc` asks them all (libs/adapters/blob-store/src/blob-gc.ts). A context that starts storing blobs adds
// its declaration; until it does, the gc keeps the blobs its events name and reports them as unaccounted for.
import type { BlobReferences } from '#blob-store';
import { sandboxBlobReferences } from '#code-execution';
import { KNOWLEDGE_BLOB_REFERENCES } from '#knowledge';
import { skillBlobReferences } from '#skills';

export const ALL_BLOB_REFERENCES: readonly BlobReferences[] = [
  ...KNOWLEDGE_BLOB_REFERENCES,
  skillBlobReferences,
  sandboxBlobReferences,
];
