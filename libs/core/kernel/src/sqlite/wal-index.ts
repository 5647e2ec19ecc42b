// A log's wal-index header, read from its `-shm` file (walformat.html §2.2): what the checkpoint thread and its watch
// on the main thread look at without a connection.
//
// The file is opened once and kept open. Closing any descriptor of a file drops every POSIX lock this process holds on
// it, and SQLite's locks on a log (the writer's, the readers' marks, the "a connection is open" one) are such locks on
// the `-shm` file (howtocorrupt.html §2.2): a read that closed its descriptor let another process write the log while
// a writer here was committing to it, and lose one of the two commits. A descriptor is closed only once its file has
// been removed (no connection locks it any more: SQLite removes it as its last connection closes).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

export interface WalIndexHeader {
  /** mxFrame: the frames in the log. */
  readonly frames: number;
  /** The first salt: it changes whenever the log restarts. */
  readonly salt: number;
  /** nBackfill: the frames a checkpoint has copied back into the database file. */
  readonly backfilled: number;
}

const bytes = Buffer.alloc(100);
const LITTLE_ENDIAN = endianness() === 'LE';
/** This thread's descriptor of each `-shm` file it has read, by path. */
const descriptors = new Map<string, number>();

/** The open descriptor of a `-shm` file: the one kept, or a new one when there was none or its file was removed. */
function descriptorOf(shm: string): number {
  const kept = descriptors.get(shm);
  if (kept !== undefined) {
    if (fstatSync(kept).nlink > 0) return kept;
    descriptors.delete(shm);
    closeSync(kept);
  }
  // No `-shm` file (no log yet, or removed): the open throws, and walIndexHeader answers null.
  const fd = openSync(shm, 'r');
  descriptors.set(shm, fd);
  return fd;
}

/**
 * The first copy of a log's wal-index header and the checkpoint info after the two copies (in the host's byte order).
 * Null without a wal-index (no log yet, or the file was closed and its log removed).
 */
export function walIndexHeader(path: string): WalIndexHeader | null {
  // Never throws: its callers are timers (a throw there would end the thread, or the process).
  try {
    const fd = descriptorOf(`${path}-shm`);
    if (readSync(fd, bytes, 0, 100, 0) < 100) return null;
    const u32 = (at: number) => (LITTLE_ENDIAN ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
    return { frames: u32(16), salt: u32(32), backfilled: u32(96) };
  } catch {
    return null;
  }
}
