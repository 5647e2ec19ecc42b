// Sweeps the blob store of blobs the log no longer references. Deletion purges remove content as they go; what is
// left is what a crash stranded: bytes put by an upload whose DocumentAdded was never appended, an extracted text or
// chunk list stored by an ingestion that died before DocumentReady, a summary tree written by a build that died
// before SummaryBuildCompleted. Every writer puts the bytes first and appends the event naming them after, so a
// blob stored recently may be one a writer is about to reference: those are kept for a grace period.
import type { BlobStore, ListedBlob } from '#blob-store';
import type { EventStore } from '#event-store';
import { referencedBlobIds } from './blob-references.js';

/** An upload, an ingestion or a summary build in flight appends its event well within this. */
export const DEFAULT_BLOB_GC_MIN_AGE_MS = 60 * 60 * 1000;

export interface SweepBlobsOptions {
  readonly blobs: BlobStore;
  readonly events: EventStore;
  /** Milliseconds: an unreferenced blob stored more recently than this is kept. Default one hour. */
  readonly minAge?: number;
  /** Report what would be removed, remove nothing. */
  readonly dryRun?: boolean;
  /** The time ages are measured from; default the start of the sweep. */
  readonly now?: Date;
}

export interface SweptBlob {
  readonly id: string;
  readonly sizeBytes: number;
}

export interface SweepBlobsResult {
  /** Blobs the store listed. */
  readonly scanned: number;
  /** Of those, the ones the log references (kept). */
  readonly referenced: number;
  /** Unreferenced and older than the grace period: removed (or, in a dry run, to be removed). */
  readonly removed: readonly SweptBlob[];
  /** Unreferenced but stored within the grace period: kept, as a writer may be about to reference them. */
  readonly keptYoung: number;
  /** The sizes of the removed blobs, summed. */
  readonly bytesFreed: number;
}

export async function sweepBlobs(options: SweepBlobsOptions): Promise<SweepBlobsResult> {
  const minAge = options.minAge ?? DEFAULT_BLOB_GC_MIN_AGE_MS;
  if (!Number.isFinite(minAge) || minAge < 0) throw new RangeError(`minAge must be >= 0 ms, got ${minAge}`);
  const now = (options.now ?? new Date()).getTime();

  const listed: ListedBlob[] = [];
  for await (const blob of options.blobs.list()) listed.push(blob);
  // The log is read after the listing, so every listed blob whose event is appended by now counts as referenced; a
  // listed blob whose writer has yet to append is within the grace period, and one put later is not in the list.
  const referenced = await referencedBlobIds(options.events);

  const removed: SweptBlob[] = [];
  let referencedCount = 0;
  let keptYoung = 0;
  for (const blob of listed) {
    if (referenced.has(blob.id)) referencedCount++;
    // A blob stored after `now` (during this sweep) is young even with no grace period.
    else if (now - blob.storedAt.getTime() < minAge) keptYoung++;
    // Gone already (a purge, another sweep): nothing of ours to report.
    else if (options.dryRun || (await options.blobs.delete(blob.id)))
      removed.push({ id: blob.id, sizeBytes: blob.sizeBytes });
  }
  return {
    scanned: listed.length,
    referenced: referencedCount,
    removed,
    keptYoung,
    bytesFreed: removed.reduce((sum, blob) => sum + blob.sizeBytes, 0),
  };
}
