// A tiny tar writer and reader (ustar headers of 512 bytes), enough for the Docker Engine archive endpoints: the
// writer makes directories and regular files owned by root; the reader walks what Docker sends back (ustar, GNU long
// names, PAX path records) and refuses an archive larger than its bound.

const BLOCK = 512;

export interface TarEntry {
  /** The entry's path as stored (`/`-separated, no leading `./`, directories without the trailing `/`). */
  readonly path: string;
  /** '0' regular file, '5' directory, '2' symbolic link, … (a NUL type reads as '0'). */
  readonly type: string;
  readonly size: number;
  readonly bytes: Uint8Array;
}

export interface TarInput {
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly mode: number;
  readonly bytes?: Uint8Array;
}

const octal = (value: number, width: number): string => value.toString(8).padStart(width - 1, '0') + '\0';

function writeString(header: Uint8Array, offset: number, width: number, value: string): void {
  const bytes = new TextEncoder().encode(value);
  if (bytes.length > width) throw new Error(`tar field too long: ${value}`);
  header.set(bytes, offset);
}

/** Splits a path into ustar `prefix` and `name`; null when it cannot fit (name ≤ 100 bytes, prefix ≤ 155). */
function splitName(path: string): { prefix: string; name: string } | null {
  const size = (s: string): number => new TextEncoder().encode(s).length;
  if (size(path) <= 100) return { prefix: '', name: path };
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (size(prefix) <= 155 && size(name) <= 100 && name.length > 0) return { prefix, name };
  }
  return null;
}

/** Whether `path` can be written as a ustar name. */
export const fitsTarName = (path: string): boolean => splitName(path) !== null;

function header(entry: TarInput, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const split = splitName(entry.path);
  if (!split) throw new Error(`tar path too long: ${entry.path}`);
  writeString(block, 0, 100, split.name);
  writeString(block, 100, 8, octal(entry.mode, 8));
  writeString(block, 108, 8, octal(0, 8));
  writeString(block, 116, 8, octal(0, 8));
  writeString(block, 124, 12, octal(size, 12));
  writeString(block, 136, 12, octal(0, 12));
  block.fill(0x20, 148, 156);
  writeString(block, 156, 1, entry.type === 'directory' ? '5' : '0');
  writeString(block, 257, 6, 'ustar\0');
  writeString(block, 263, 2, '00');
  writeString(block, 265, 32, 'root');
  writeString(block, 297, 32, 'root');
  writeString(block, 345, 155, split.prefix);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return block;
}

/** A tar archive of `entries`, in order, with the two zero blocks at the end. */
export function writeTar(entries: readonly TarInput[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const bytes = entry.type === 'file' ? (entry.bytes ?? new Uint8Array()) : new Uint8Array();
    parts.push(header(entry, bytes.length));
    if (bytes.length > 0) {
      parts.push(bytes);
      const pad = (BLOCK - (bytes.length % BLOCK)) % BLOCK;
      if (pad) parts.push(new Uint8Array(pad));
    }
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(parts);
}

const readString = (block: Uint8Array, offset: number, width: number): string => {
  const field = block.subarray(offset, offset + width);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
};

const readOctal = (block: Uint8Array, offset: number, width: number): number => {
  const text = readString(block, offset, width).trim();
  return text ? parseInt(text, 8) : 0;
};

/** PAX records (`<len> key=value\n`): the `path` one, if any. */
function paxPath(bytes: Uint8Array): string | null {
  const text = new TextDecoder().decode(bytes);
  let path: string | null = null;
  for (const line of text.split('\n')) {
    const match = /^\d+ ([^=]+)=(.*)$/s.exec(line);
    if (match?.[1] === 'path') path = match[2]!;
  }
  return path;
}

/** The entries of a tar archive. Throws on a malformed header. */
export function readTar(archive: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | null = null;
  while (offset + BLOCK <= archive.length) {
    const block = archive.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
    if (sum !== readOctal(block, 148, 8)) throw new Error('tar: bad header checksum');
    const size = readOctal(block, 124, 12);
    const type = readString(block, 156, 1) || '0';
    const start = offset + BLOCK;
    const bytes = archive.subarray(start, start + size);
    if (bytes.length < size) throw new Error('tar: truncated entry');
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = new TextDecoder().decode(bytes).replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      longName = paxPath(bytes) ?? longName;
      continue;
    }
    if (type === 'g') continue;
    const prefix = readString(block, 345, 155);
    const name = readString(block, 0, 100);
    const path = (longName ?? (prefix ? `${prefix}/${name}` : name)).replace(/^\.\//, '').replace(/\/+$/, '');
    longName = null;
    entries.push({ path, type, size, bytes });
  }
  return entries;
}
