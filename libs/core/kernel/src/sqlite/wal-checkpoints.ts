// Checkpoints the write-ahead logs of this process's SQLite files in one worker thread (wal-checkpoints.worker.ts),
// so the thread that writes does not. SQLite's default has the connection that commits the 1,000th page of a log copy
// the log into the database file and sync both, inside that COMMIT: on the api's event loop, every tenth turn or so
// (measured: +17 ms on one turn in ten) and many times in a projection rebuild.
//
// The thread costs memory (≈13 MB in the api: a V8 isolate and its connections), so it starts only once a registered
// file's writer has checkpointed its log itself: the log restarted (the salt in its wal-index header changed,
// walformat.html §2.2.1) after reaching SQLite's 1,000 pages, or it holds STARTS_AT_FRAMES pages (readers kept it from
// restarting). A main-thread timer reads the `-shm` files' headers every `watchIntervalMs`. A fresh api's first start
// (≈700 pages, its tables created) or a process that writes little never starts it; a process that does keeps it.
// From then on it looks at every registered file's log every `intervalMs` and runs a PASSIVE checkpoint (it never
// waits for readers or writers) of one holding `checkpointAtFrames` frames not yet copied back, and each writer's
// automatic checkpoint is raised to a backstop (BACKSTOP_AUTOCHECKPOINT_PAGES) for a log the thread cannot keep up
// with. The worker is the compiled `wal-checkpoints.worker.js` beside this module; from the TypeScript sources
// (ts-jest) there is none, and writers checkpoint themselves, as SQLite does.
import { existsSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { walIndexHeader } from './wal-index.js';

const COMPILED_WORKER = new URL('./wal-checkpoints.worker.js', import.meta.url);

/** The compiled worker beside this module, or null (TypeScript sources). */
export const defaultWalCheckpointsWorker = (): URL | null =>
  existsSync(fileURLToPath(COMPILED_WORKER)) ? COMPILED_WORKER : null;

/** SQLite's own automatic checkpoint, in pages of the log. */
export const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
/** A writer's automatic checkpoint while the thread checkpoints its file. */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 10_000;
/** A log this long starts the thread even before it restarted. */
export const STARTS_AT_FRAMES = 2 * DEFAULT_AUTOCHECKPOINT_PAGES;

export interface WalFile {
  /** The database file (its log is `<path>-wal`). */
  readonly path: string;
  /** The writer's `PRAGMA synchronous`: the thread's connection syncs the same way. */
  readonly synchronous: 'NORMAL' | 'FULL';
  /** Sets the writer's automatic checkpoint (pages): the backstop while the thread runs, the default after. */
  readonly autocheckpoint: (pages: number) => void;
}

export interface WalCheckpointsOptions {
  readonly workerUrl: URL;
  /** How often the thread looks at the logs (default 200 ms). */
  readonly intervalMs?: number;
  /** A log holding this many frames not yet copied back is checkpointed (default SQLite's 1,000). */
  readonly checkpointAtFrames?: number;
  /** How often the main thread reads the logs' headers until the thread runs (default 250 ms). */
  readonly watchIntervalMs?: number;
  readonly startsAtFrames?: number;
}

/** A checkpoint thread holds a few connections and a timer: a small heap. */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 } as const;

export class WalCheckpoints {
  private static readonly shared = new Map<string, WalCheckpoints>();

  /** The process's checkpoint thread for this worker (one for every file of the process). */
  static for(workerUrl: URL): WalCheckpoints {
    let checkpoints = WalCheckpoints.shared.get(workerUrl.href);
    if (!checkpoints) {
      checkpoints = new WalCheckpoints({ workerUrl });
      WalCheckpoints.shared.set(workerUrl.href, checkpoints);
    }
    return checkpoints;
  }

  private readonly files = new Map<number, WalFile>();
  private nextId = 0;
  private worker: Worker | null = null;
  private watch: NodeJS.Timeout | null = null;
  /** Each log's salt at the first look: a different one later means the log restarted after a checkpoint. */
  private readonly salts = new Map<string, number>();
  private readonly closing = new Map<number, () => void>();

  constructor(private readonly options: WalCheckpointsOptions) {}

  /** Whether the thread runs (checkpointing every registered file). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Checkpoints `file` from now on (once the thread runs); the returned function ends that, and resolves after. */
  register(file: WalFile): () => Promise<void> {
    const id = this.nextId++;
    this.files.set(id, file);
    if (this.worker) this.open(this.worker, id, file);
    else this.watchLogs();
    return () => this.unregister(id);
  }

  private async unregister(id: number): Promise<void> {
    const file = this.files.get(id);
    if (!file) return;
    this.files.delete(id);
    // Closed, its log is removed: a writer that opens it again starts a new one, with new salts.
    this.salts.delete(file.path);
    const worker = this.worker;
    if (this.files.size === 0) this.stopWatching();
    if (!worker) return;
    // The thread closes its connection before the writer closes its own (the last one to close removes the log).
    const closed = new Promise<void>((resolve) => this.closing.set(id, resolve));
    worker.ref();
    worker.postMessage({ close: id });
    await closed;
    if (this.closing.size === 0) worker.unref();
  }

  private watchLogs(): void {
    if (this.watch) return;
    this.watch = setInterval(() => {
      const started = [...this.files.values()].some((file) => {
        const header = walIndexHeader(file.path);
        if (!header) return false;
        // A log's first frame gives it its salts: the first look that counts is one at a log with frames.
        const first = this.salts.get(file.path);
        if (first === undefined && header.frames > 0) this.salts.set(file.path, header.salt);
        const restarted = first !== undefined && header.salt !== first;
        return restarted || header.frames >= (this.options.startsAtFrames ?? STARTS_AT_FRAMES);
      });
      if (started) this.start();
    }, this.options.watchIntervalMs ?? 250);
    this.watch.unref();
  }

  private stopWatching(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  private start(): void {
    this.stopWatching();
    const worker = new Worker(this.options.workerUrl, {
      workerData: {
        intervalMs: this.options.intervalMs ?? 200,
        checkpointAtFrames: this.options.checkpointAtFrames ?? DEFAULT_AUTOCHECKPOINT_PAGES,
      },
      resourceLimits: WORKER_LIMITS,
    });
    // It never holds the process open; an error ends it, and what follows is its exit.
    worker.unref();
    worker.on('error', () => undefined);
    worker.on('message', ({ closed }: { closed?: number }) => {
      if (closed === undefined) return;
      this.closing.get(closed)?.();
      this.closing.delete(closed);
    });
    worker.once('exit', () => {
      if (this.worker !== worker) return;
      // The thread is gone (it failed): every writer checkpoints itself again, and the logs are watched anew.
      this.worker = null;
      for (const resolve of this.closing.values()) resolve();
      this.closing.clear();
      for (const file of this.files.values()) file.autocheckpoint(DEFAULT_AUTOCHECKPOINT_PAGES);
      if (this.files.size > 0) this.watchLogs();
    });
    this.worker = worker;
    for (const [id, file] of this.files) this.open(worker, id, file);
  }

  private open(worker: Worker, id: number, file: WalFile): void {
    worker.postMessage({ open: id, path: file.path, synchronous: file.synchronous });
    file.autocheckpoint(BACKSTOP_AUTOCHECKPOINT_PAGES);
  }
}

/**
 * Has the process's checkpoint thread checkpoint a writer's file (what the embedded stores do when they open it): the
 * compiled worker by default, `worker: null` to leave checkpoints to the writer. The returned function ends it (call
 * it before closing `db`); null where there is nothing to do (`:memory:`, or no compiled worker).
 */
export function checkpointInThread(
  db: DatabaseSync,
  options: { readonly path: string; readonly synchronous: 'NORMAL' | 'FULL'; readonly worker?: URL | null },
): (() => Promise<void>) | null {
  const worker = options.worker === undefined ? defaultWalCheckpointsWorker() : options.worker;
  if (!worker || options.path === ':memory:') return null;
  return WalCheckpoints.for(worker).register({
    path: options.path,
    synchronous: options.synchronous,
    autocheckpoint: (pages) => {
      if (db.isOpen) db.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
    },
  });
}
