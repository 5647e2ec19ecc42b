// A log's wal-index header, read from its `-shm` file (walformat.html §2.2): what the checkpoint thread and its watch
// on the main thread look at without a connection.
import { closeSync, openSync, readSync } from 'node:fs';
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

/**
 * The first copy of a log's wal-index header and the checkpoint info after the two copies (in the host's byte order).
 * Null without a wal-index (no log yet, or the file was closed and its log removed).
 */
export function walIndexHeader(path: string): WalIndexHeader | null {
  let fd: number | null = null;
  try {
    fd = openSync(`${path}-shm`, 'r');
    if (readSync(fd, bytes, 0, 100, 0) < 100) return null;
    const u32 = (at: number) => (LITTLE_ENDIAN ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
    return { frames: u32(16), salt: u32(32), backfilled: u32(96) };
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
