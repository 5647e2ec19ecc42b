// Sweeps the blob store of blobs nothing in the log references any more, through one mechanism: every context that
// stores blobs declares its references (a BlobReferences: the event types it accounts for and a fold over them that
// says which blobs are still live), and the composition root lists them all. The log is read once; each event goes
// to the declarations that account for its type. An event of a type no declaration accounts for that names blob ids
// anywhere in its data is a kind of blob the sweep cannot account for: those blobs are kept and reported, never
// deleted. Deletion purges remove content as they go; what is left is what a crash stranded (bytes put by a writer
// that died before appending the event naming them). A writer puts the bytes first and appends after, so a blob
// stored recently may be one a writer is about to reference: those are kept for a grace period.
import type { EventEnvelope } from '#kernel';
import { isBlobId, type BlobStore, type ListedBlob } from './blob-store.port.js';

/** One pass over the log for one declaration: fed the events of its types, in order. */
export interface BlobReferenceFold {
  apply(event: EventEnvelope): void;
  /** The blobs still live once every event was applied. */
  referenced(): Iterable<string>;
}

/** What one context declares of the blobs it stores. */
export interface BlobReferences {
  /** The kind of blobs it accounts for, as reports name it (`knowledge documents`, `sandbox files`). */
  readonly kind: string;
  /** Every event type that names blobs of this kind. */
  readonly eventTypes: readonly string[];
  /** A fresh fold (a sweep starts one per declaration). */
  start(): BlobReferenceFold;
}

/** The part of the event store a sweep reads. */
export interface BlobLogReader {
  readAll(options?: {
    readonly after?: number;
    readonly maxCount?: number;
  }): Promise<readonly EventEnvelope[]>;
}

/** An upload, an ingestion, a summary build or a code run in flight appends its event well within this. */
export const DEFAULT_BLOB_GC_MIN_AGE_MS = 60 * 60 * 1000;

const PAGE = 1000;

export interface BlobReferencesFound {
  /** Blobs a declaration says are live. */
  readonly referenced: ReadonlySet<string>;
  /** Blobs named by events no declaration accounts for, each with the event types naming it. */
  readonly unaccounted: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Reads the whole log once (the truth, whatever the read models say) and folds it through every declaration. */
export async function findBlobReferences(
  log: BlobLogReader,
  declarations: readonly BlobReferences[],
  pageSize = PAGE,
): Promise<BlobReferencesFound> {
  const folds = declarations.map((declaration) => ({ declaration, fold: declaration.start() }));
  const byType = new Map<string, BlobReferenceFold[]>();
  for (const { declaration, fold } of folds)
    for (const type of declaration.eventTypes) byType.set(type, [...(byType.get(type) ?? []), fold]);
  const unaccounted = new Map<string, Set<string>>();
  let after: number | undefined;
  for (;;) {
    const page = await log.readAll({ after, maxCount: pageSize });
    if (page.length === 0) break;
    for (const event of page) {
      const readers = byType.get(event.type);
      if (readers) for (const fold of readers) fold.apply(event);
      else
        for (const blobId of blobIdsIn(event.data))
          unaccounted.set(blobId, new Set([...(unaccounted.get(blobId) ?? []), event.type]));
    }
    after = page[page.length - 1]!.position;
  }
  const referenced = new Set<string>();
  for (const { fold } of folds) for (const blobId of fold.referenced()) referenced.add(blobId);
  return { referenced, unaccounted };
}

/** Every blob id anywhere in a value (an event's data), however deep. */
export function blobIdsIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (isBlobId(value)) found.add(value);
  else if (Array.isArray(value)) for (const item of value) blobIdsIn(item, found);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) blobIdsIn(item, found);
  return found;
}

export interface SweepBlobsOptions {
  readonly blobs: BlobStore;
  readonly events: BlobLogReader;
  /** Every context's declaration (the composition root's list). */
  readonly references: readonly BlobReferences[];
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
  /** Of those, the ones a declaration references (kept). */
  readonly referenced: number;
  /** Unreferenced and older than the grace period: removed (or, in a dry run, to be removed). */
  readonly removed: readonly SweptBlob[];
  /** Unreferenced but stored within the grace period: kept, as a writer may be about to reference them. */
  readonly keptYoung: number;
  /** Named by events no declaration accounts for: kept, with those event types (a kind the sweep cannot judge). */
  readonly keptUnaccounted: readonly { readonly id: string; readonly eventTypes: readonly string[] }[];
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
  const { referenced, unaccounted } = await findBlobReferences(options.events, options.references);

  const removed: SweptBlob[] = [];
  const keptUnaccounted: SweepBlobsResult['keptUnaccounted'][number][] = [];
  let referencedCount = 0;
  let keptYoung = 0;
  for (const blob of listed) {
    const namedBy = unaccounted.get(blob.id);
    if (referenced.has(blob.id)) referencedCount++;
    else if (namedBy) keptUnaccounted.push({ id: blob.id, eventTypes: [...namedBy].sort() });
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
    keptUnaccounted,
    bytesFreed: removed.reduce((sum, blob) => sum + blob.sizeBytes, 0),
  };
}
