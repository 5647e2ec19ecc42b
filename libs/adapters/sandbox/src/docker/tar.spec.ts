import { Readable } from 'node:stream';
import { extract, type Header, pack } from 'tar-stream';
import { readTar, TarLimitError, writeTar } from './tar.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const CAPS = { maxEntries: 100, maxBytes: 1024 * 1024 };

/** A tar written by tar-stream's pack directly, for headers writeTar never makes (links, any size). */
async function packed(write: (archive: ReturnType<typeof pack>) => void): Promise<Uint8Array> {
  const archive = pack();
  write(archive);
  archive.finalize();
  const chunks: Uint8Array[] = [];
  for await (const chunk of archive as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('the tar archives of the Docker archive endpoints', () => {
  it('round-trips folders and files, owned by root, a long path as a PAX record', async () => {
    const long = `${'deep/'.repeat(40)}file.txt`;
    expect(long.length).toBeGreaterThan(155);
    const archive = await writeTar([
      { path: 'pdf', type: 'directory', mode: 0o755 },
      { path: 'pdf/SKILL.md', type: 'file', mode: 0o444, bytes: text('# PDF') },
      { path: long, type: 'file', mode: 0o444, bytes: text('far') },
    ]);
    const entries = await readTar(archive, CAPS);
    expect(entries.map((e) => [e.path, e.type, e.size])).toEqual([
      ['pdf', 'directory', 0],
      ['pdf/SKILL.md', 'file', 5],
      [long, 'file', 3],
    ]);
    expect(new TextDecoder().decode(entries[2]!.bytes)).toBe('far');
    const headers: Header[] = [];
    const reader = extract();
    Readable.from([archive]).pipe(reader);
    for await (const entry of reader) {
      headers.push(entry.header);
      entry.resume();
    }
    expect(headers.map((h) => [h.uid, h.gid, h.uname, h.mode])).toEqual([
      [0, 0, 'root', 0o755],
      [0, 0, 'root', 0o444],
      [0, 0, 'root', 0o444],
    ]);
  });

  it('reads links and other types as they are (the adapter keeps only regular files)', async () => {
    const archive = await packed((tar) => {
      tar.entry({ name: './work/', type: 'directory' });
      tar.entry({ name: './work/passwd', type: 'symlink', linkname: '/etc/passwd' });
      tar.entry({ name: './work/a.txt' }, 'a');
    });
    expect((await readTar(archive, CAPS)).map((e) => [e.path, e.type])).toEqual([
      ['work', 'directory'],
      ['work/passwd', 'symlink'],
      ['work/a.txt', 'file'],
    ]);
  });

  it('refuses more entries than its cap', async () => {
    const archive = await writeTar(
      Array.from({ length: 11 }, (_, i) => ({ path: `f${i}`, type: 'file' as const, mode: 0o644 })),
    );
    expect((await readTar(archive, { ...CAPS, maxEntries: 11 })).length).toBe(11);
    await expect(readTar(archive, { ...CAPS, maxEntries: 10 })).rejects.toThrow(TarLimitError);
  });

  it('refuses an entry declaring more bytes than its cap from its header, before reading its data', async () => {
    const archive = await writeTar([
      { path: 'a', type: 'file', mode: 0o644, bytes: new Uint8Array(600) },
      { path: 'b', type: 'file', mode: 0o644, bytes: new Uint8Array(600) },
    ]);
    expect((await readTar(archive, { ...CAPS, maxBytes: 1200 })).length).toBe(2);
    await expect(readTar(archive, { ...CAPS, maxBytes: 1199 })).rejects.toThrow(TarLimitError);
    // A header declaring 1 GiB whose data never comes: refused at the header, not read until the end.
    const header = (
      await writeTar([{ path: 'huge', type: 'file', mode: 0o644, bytes: new Uint8Array(1) }])
    ).slice(0, 512);
    const size = (1024 ** 3).toString(8).padStart(11, '0');
    header.set(text(size), 124);
    header.fill(0x20, 148, 156);
    const sum = header.reduce((total, byte) => total + byte, 0);
    header.set(text(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
    await expect(readTar(header, CAPS)).rejects.toThrow(TarLimitError);
  });

  it('reads from a stream of chunks too', async () => {
    const archive = await writeTar([{ path: 'a.txt', type: 'file', mode: 0o644, bytes: text('chunked') }]);
    async function* chunks(): AsyncIterable<Uint8Array> {
      for (let at = 0; at < archive.length; at += 100) yield archive.subarray(at, at + 100);
    }
    const [entry] = await readTar(chunks(), CAPS);
    expect(new TextDecoder().decode(entry!.bytes)).toBe('chunked');
  });

  it('throws on a malformed archive', async () => {
    const archive = await writeTar([{ path: 'a.txt', type: 'file', mode: 0o644, bytes: text('x') }]);
    const broken = archive.slice();
    broken[148] = 0x37; // the header checksum
    broken[149] = 0x37;
    await expect(readTar(broken, CAPS)).rejects.toThrow();
  });
});
