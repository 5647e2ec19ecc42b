// The tar archives of the Docker Engine's archive endpoints, through tar-stream (ustar, GNU long names, PAX
// records): `writeTar` packs the skill files for `PUT …/archive` (directories and regular files owned by root, long
// paths as PAX records); `readTar` reads what the Engine sends back for `GET …/archive`, within caps on the number
// of entries and on the bytes they declare, checked from each header before its data is read.
import { Readable } from 'node:stream';
import type { Header } from 'tar-stream';
import { lazyModule } from '#kernel';

// tar-stream (and streamx) is required at the first archive, not at start-up: only the Docker sandbox uses it.
const tarStream = lazyModule<typeof import('tar-stream')>('tar-stream');

export interface TarEntry {
  /** The entry's path as stored (`/`-separated, no leading `./`, directories without the trailing `/`). */
  readonly path: string;
  /** tar-stream's name of the entry's type: 'file', 'directory', 'symlink', 'contiguous-file', … */
  readonly type: Header['type'];
  readonly size: number;
  readonly bytes: Uint8Array;
}

export interface TarInput {
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly mode: number;
  readonly bytes?: Uint8Array;
}

export interface TarCaps {
  /** Entries of any type, directories included. */
  readonly maxEntries: number;
  /** The sizes the entries' headers declare, added up. */
  readonly maxBytes: number;
}

/** An archive past its caps: reading stopped at the header that went past them. */
export class TarLimitError extends Error {}

/** A tar archive of `entries`, in order, ending with the two zero blocks. */
export async function writeTar(entries: readonly TarInput[]): Promise<Uint8Array> {
  const archive = tarStream().pack();
  const chunks: Uint8Array[] = [];
  const drained = (async () => {
    for await (const chunk of archive as AsyncIterable<Uint8Array>) chunks.push(chunk);
  })();
  for (const entry of entries) {
    const bytes = entry.type === 'file' ? (entry.bytes ?? new Uint8Array()) : new Uint8Array();
    await new Promise<void>((resolve, reject) =>
      archive.entry(
        {
          name: entry.path,
          type: entry.type,
          mode: entry.mode,
          size: bytes.length,
          mtime: new Date(0),
          uid: 0,
          gid: 0,
          uname: 'root',
          gname: 'root',
        },
        bytes,
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  }
  archive.finalize();
  await drained;
  return Buffer.concat(chunks);
}

/**
 * The entries of a tar archive (bytes, or a stream of them), refusing (TarLimitError) more than `caps.maxEntries`
 * entries or more than `caps.maxBytes` declared bytes before reading the entry that goes past them. Throws on a
 * malformed archive.
 */
export async function readTar(
  archive: Uint8Array | AsyncIterable<Uint8Array>,
  caps: TarCaps,
): Promise<TarEntry[]> {
  const source = archive instanceof Uint8Array ? Readable.from([archive]) : Readable.from(archive);
  const reader = tarStream().extract();
  source.on('error', (error) => reader.destroy(error));
  source.pipe(reader);
  const entries: TarEntry[] = [];
  let declared = 0;
  try {
    for await (const entry of reader) {
      const header = entry.header;
      if (entries.length + 1 > caps.maxEntries)
        throw new TarLimitError(`tar: more than ${caps.maxEntries} entries`);
      declared += header.size;
      if (declared > caps.maxBytes)
        throw new TarLimitError(`tar: more than ${caps.maxBytes} bytes in its entries`);
      const chunks: Uint8Array[] = [];
      for await (const chunk of entry as AsyncIterable<Uint8Array>) chunks.push(chunk);
      const path = header.name.replace(/^\.\//, '').replace(/\/+$/, '');
      entries.push({ path, type: header.type, size: header.size, bytes: Buffer.concat(chunks) });
    }
  } finally {
    source.destroy();
    reader.destroy();
  }
  return entries;
}
