// The data directory is readable by the platform's own user only: it holds the event log, the key store, uploaded
// documents and the search index, and a world-readable file there is a leak to every other account on the host.
// Three layers, because each misses something the others catch: the processes run with umask 077 (whatever a
// library creates is private too), each writer under DATA_DIR names the private modes itself (the embedded
// end-to-end tests run inside a test runner whose umask is not ours), and start-up tightens what is already there (a
// umask cannot change files an earlier version made world-readable).
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync, type DatabaseSyncOptions } from 'node:sqlite';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;
/** Group and other permission bits. */
const SHARED_BITS = 0o077;

/** Makes new files and folders of this process private to its user (umask is per process, not per thread). */
export function restrictProcessUmask(): void {
  process.umask(SHARED_BITS);
}

/** Creates the folder and its missing parents, each 0700. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Opens a SQLite database file, created 0600 in a 0700 folder when missing. SQLite gives its -wal, -shm and journal
 * files the database file's mode, so creating that file first is what makes them private too. An existing file is
 * not opened here: closing a descriptor of it would drop the POSIX locks this process's connections hold on it
 * (howtocorrupt.html §2.2), and another process could then take the file for its own alone.
 */
export function openPrivateDatabase(path: string, options?: DatabaseSyncOptions): DatabaseSync {
  if (path !== ':memory:') {
    makePrivateDir(dirname(path));
    createPrivateFile(path);
  }
  return options ? new DatabaseSync(path, options) : new DatabaseSync(path);
}

/** Creates an empty file 0600 unless one is there (left as it is, never opened). */
function createPrivateFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  closeSync(fd);
}

/**
 * Removes the group and other bits from the folder and everything under it, when it exists; symbolic links are
 * neither followed nor changed. An entry this user may not change (a mounted volume's root owned by another user) is
 * counted in `refused`, not thrown: the platform still starts, and the caller says so.
 */
export function tightenPrivateTree(root: string): { changed: number; refused: number } {
  let changed = 0;
  let refused = 0;
  const visit = (path: string): void => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats || stats.isSymbolicLink()) return;
    if ((stats.mode & SHARED_BITS) !== 0) {
      try {
        chmodSync(path, stats.mode & 0o700);
        changed++;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
        refused++;
      }
    }
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return { changed, refused };
}

/** Left in DATA_DIR once its tree was made private: later starts skip the walk (everything since was made private). */
export const PRIVATE_TREE_MARKER = '.private-tree';

/**
 * `tightenPrivateTree` once per data directory: the walk reads every entry (≈ 0.26 s per 100,000 blob files), and
 * after it every writer creates its files private, so a start with the marker and a private root walks nothing. A
 * root that is readable by others again (a copy, a restore) is walked again.
 */
export function tightenDataDir(root: string): { changed: number; refused: number } {
  const marker = join(root, PRIVATE_TREE_MARKER);
  const rootStats = lstatSync(root, { throwIfNoEntry: false });
  if (rootStats && (rootStats.mode & SHARED_BITS) === 0 && lstatSync(marker, { throwIfNoEntry: false }))
    return { changed: 0, refused: 0 };
  const result = tightenPrivateTree(root);
  if (rootStats && result.refused === 0) closeSync(openSync(marker, 'a', PRIVATE_FILE_MODE));
  return result;
}
