// The data directory's one-time walk: it makes an existing tree private, leaves its marker, and a later start with the
// marker and a private root walks nothing; a root made readable again (a copy, a restore) is walked again.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRIVATE_TREE_MARKER, tightenDataDir } from './private-files.js';

describe('tightenDataDir', () => {
  const root = mkdtempSync(join(tmpdir(), 'private-tree-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('walks a tree once, then only when its root is readable by others again', () => {
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'blobs'), { mode: 0o755 });
    const blob = join(root, 'blobs', 'b1');
    writeFileSync(blob, 'x', { mode: 0o644 });
    expect(tightenDataDir(root)).toEqual({ changed: 3, refused: 0 });
    expect(statSync(blob).mode & 0o777).toBe(0o600);
    expect(existsSync(join(root, PRIVATE_TREE_MARKER))).toBe(true);

    // Marked and private: nothing is walked (a file loosened by hand since stays as it is).
    chmodSync(blob, 0o644);
    expect(tightenDataDir(root)).toEqual({ changed: 0, refused: 0 });
    expect(statSync(blob).mode & 0o777).toBe(0o644);

    // A root readable by others again: the whole tree is walked again.
    chmodSync(root, 0o755);
    expect(tightenDataDir(root)).toEqual({ changed: 2, refused: 0 });
    expect(statSync(blob).mode & 0o777).toBe(0o600);
  });

  it('leaves no marker in a data directory that does not exist yet', () => {
    const missing = join(root, 'not-yet');
    expect(tightenDataDir(missing)).toEqual({ changed: 0, refused: 0 });
    expect(existsSync(missing)).toBe(false);
  });
});
