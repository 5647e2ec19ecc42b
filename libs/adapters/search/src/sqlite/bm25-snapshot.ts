// The in-memory BM25 postings of an index saved beside search.db (`<search.db>.bm25/<incarnation>.bin`), so that a
// restart loads them in a fraction of a second instead of tokenizing every chunk again. One file per index
// incarnation: "BM25SNP3", the byte length of a JSON header (the tokens, owners and counts), the header, then the
// typed arrays, each starting on an 8-byte boundary. Written to a temporary name and renamed, so a reader sees a whole
// file or none. Only compacted postings are saved (no removed row in them); a removal deletes the file at once, so a
// deleted document's words stay in no file. A file that does not read back is ignored (and the postings rebuilt).
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '#kernel/thread-kit';
import { Bm25Postings, type PostingsImage } from './bm25-postings.js';

/**
 * 3: ordinals packed (bm25-packed.ts); 2: counts of one byte (1: two). A file of another version is not read (the
 * postings are built again).
 */
const MAGIC = 'BM25SNP3';
const ARRAYS = [
  'offsets',
  'counts',
  'groupsOf',
  'firsts',
  'starts',
  'gaps',
  'chunkOf',
  'ownerOf',
  'lengthOf',
  'documents',
] as const;
const TYPES = {
  offsets: Uint32Array,
  counts: Uint8Array,
  groupsOf: Uint32Array,
  firsts: Int32Array,
  starts: Uint32Array,
  gaps: Uint8Array,
  chunkOf: Int32Array,
  ownerOf: Int32Array,
  lengthOf: Uint32Array,
  documents: Float64Array,
} as const;

const fileOf = (directory: string, incarnation: string) => join(directory, `${incarnation}.bin`);
const aligned = (offset: number) => Math.ceil(offset / 8) * 8;

export function saveSnapshot(directory: string, incarnation: string, postings: Bm25Postings): void {
  const image = postings.image();
  const header = Buffer.from(
    JSON.stringify({
      incarnation,
      ...image.header,
      lengths: Object.fromEntries(ARRAYS.map((name) => [name, image[name].length])),
    }),
  );
  const parts: Uint8Array[] = [
    Buffer.from(MAGIC),
    new Uint8Array(new Uint32Array([header.length]).buffer),
    header,
  ];
  let size = MAGIC.length + 4 + header.length;
  for (const name of ARRAYS) {
    const padding = aligned(size) - size;
    if (padding > 0) parts.push(new Uint8Array(padding));
    const array = image[name];
    parts.push(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    size += padding + array.byteLength;
  }
  makePrivateDir(directory);
  const path = fileOf(directory, incarnation);
  writeFileSync(`${path}.tmp`, Buffer.concat(parts, size), { mode: PRIVATE_FILE_MODE });
  renameSync(`${path}.tmp`, path);
}

/** The saved postings of the incarnation, or null when there is no file or it does not read back. */
export function loadSnapshot(directory: string, incarnation: string): Bm25Postings | null {
  const path = fileOf(directory, incarnation);
  if (!existsSync(path)) return null;
  try {
    const read = readFileSync(path);
    // Views need their element size's alignment: a pooled buffer's offset is not always 8.
    const file = read.byteOffset % 8 === 0 ? read : Buffer.from(read);
    if (file.subarray(0, MAGIC.length).toString() !== MAGIC) return null;
    const headerLength = file.readUInt32LE(MAGIC.length);
    let offset = MAGIC.length + 4;
    const header = JSON.parse(
      file.subarray(offset, offset + headerLength).toString(),
    ) as PostingsImage['header'] & {
      incarnation: string;
      lengths: Record<(typeof ARRAYS)[number], number>;
    };
    if (header.incarnation !== incarnation) return null;
    offset += headerLength;
    const arrays: Record<string, unknown> = {};
    for (const name of ARRAYS) {
      offset = aligned(offset);
      const type = TYPES[name];
      const length = header.lengths[name];
      if (file.byteOffset + offset + length * type.BYTES_PER_ELEMENT > file.byteOffset + file.length)
        return null;
      arrays[name] = new type(file.buffer, file.byteOffset + offset, length);
      offset += length * type.BYTES_PER_ELEMENT;
    }
    return Bm25Postings.fromImage({ header, ...(arrays as Omit<PostingsImage, 'header'>) });
  } catch {
    return null;
  }
}

export function removeSnapshot(directory: string, incarnation: string): void {
  rmSync(fileOf(directory, incarnation), { force: true });
}
