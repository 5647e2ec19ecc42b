// A Skill uploaded as a zip: SKILL.md (at the root, or in the one top-level folder) plus reference files.
// Nothing is written anywhere. The central directory is read first by a small bounded reader (names, sizes, Unix
// modes, offsets, every offset checked), so paths, symlinks, counts, sizes and ratios are refused BEFORE any
// inflating; then each entry is inflated by fflate's streaming Inflate, never past its declared size.
// Over 300 lines on purpose: the bounded zip reader keeps every offset check and limit of one archive in one file.
import { crc32 } from 'node:zlib';
import { Inflate } from 'fflate';
import { ValidationError } from '#kernel';
import {
  decodeSkillMarkdown,
  MAX_SKILL_MD_BYTES,
  parseSkillMarkdown,
  quoted,
  type SkillManifest,
} from './skill-manifest.js';

export interface ZipLimits {
  /** The zip itself (the caller checks the upload too). */
  maxZipBytes: number;
  /** Files (not folders) in the zip, SKILL.md included. */
  maxFiles: number;
  /** All files inflated together. */
  maxTotalBytes: number;
  /** One file inflated. */
  maxFileBytes: number;
  /** Inflated bytes per compressed byte, for each entry and for the whole zip. */
  maxRatio: number;
  /** Ratios are checked once an entry (or the whole) inflates to more than this: small files compress freely. */
  ratioFromBytes: number;
  /** Characters in an entry's path. */
  maxPathLength: number;
}

const MIB = 1024 * 1024;

export const ZIP_LIMITS: Readonly<ZipLimits> = Object.freeze({
  maxZipBytes: 10 * MIB,
  maxFiles: 200,
  maxTotalBytes: 50 * MIB,
  maxFileBytes: 10 * MIB,
  maxRatio: 100,
  ratioFromBytes: MIB,
  maxPathLength: 255,
});

export interface SkillFile {
  /** Relative to the Skill's root, `/`-separated (`references/api.md`). */
  path: string;
  bytes: Uint8Array;
}

export interface SkillBundle {
  manifest: SkillManifest;
  /** The reference files: every file of the zip except the root SKILL.md (folders are not listed). */
  files: SkillFile[];
}

const PARAM = 'file';
const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
const MAX_COMMENT = 0xffff;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const DOS_DIRECTORY = 0x10;
const INFLATE_CHUNK = 8 * 1024;

interface CentralEntry {
  name: string;
  rawName: Uint8Array;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  externalAttributes: number;
}

interface FileEntry {
  entry: CentralEntry;
  /** The normalized path inside the zip. */
  path: string;
  dataStart: number;
  dataEnd: number;
}

function refuse(code: string, message: string): ValidationError {
  return new ValidationError(code, message, PARAM);
}

function corrupt(message: string): ValidationError {
  return refuse('zip_corrupt', `the zip is corrupt: ${message}`);
}

/** Little-endian reads that never leave `[0, end)`. */
class Bounded {
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    readonly end = bytes.length,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  check(offset: number, length: number, what: string): void {
    if (offset < 0 || length < 0 || offset + length > this.end)
      throw corrupt(`${what} lies outside the archive`);
  }

  u16(offset: number): number {
    this.check(offset, 2, 'a header');
    return this.view.getUint16(offset, true);
  }

  u32(offset: number): number {
    this.check(offset, 4, 'a header');
    return this.view.getUint32(offset, true);
  }

  slice(offset: number, length: number, what: string): Uint8Array {
    this.check(offset, length, what);
    return this.bytes.subarray(offset, offset + length);
  }
}

/** The End Of Central Directory record: the last signature whose comment ends exactly at the end of the file. */
function findEndRecord(reader: Bounded): number {
  const last = reader.end - EOCD_SIZE;
  if (last < 0) throw corrupt('too short to be a zip');
  for (let at = last; at >= Math.max(0, last - MAX_COMMENT); at--)
    if (reader.u32(at) === EOCD_SIGNATURE && at + EOCD_SIZE + reader.u16(at + 20) === reader.end) return at;
  throw corrupt('no end of central directory record');
}

function decodeName(raw: Uint8Array, utf8Flag: boolean): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    if (utf8Flag) throw refuse('zip_invalid_path', 'an entry name is not valid UTF-8');
    return new TextDecoder('latin1').decode(raw);
  }
}

function readCentralDirectory(reader: Bounded, limits: ZipLimits): { entries: CentralEntry[]; end: number } {
  const eocd = findEndRecord(reader);
  const disk = reader.u16(eocd + 4);
  const centralDisk = reader.u16(eocd + 6);
  const entriesHere = reader.u16(eocd + 8);
  const count = reader.u16(eocd + 10);
  const size = reader.u32(eocd + 12);
  const offset = reader.u32(eocd + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff)
    throw refuse('zip_unsupported', 'ZIP64 archives are not supported');
  if (disk !== 0 || centralDisk !== 0 || entriesHere !== count)
    throw refuse('zip_unsupported', 'multi-part archives are not supported');
  // Folders are entries too: allow as many as files before reading any entry.
  if (count > 2 * limits.maxFiles)
    throw refuse('zip_too_many_files', `the zip holds ${count} entries; at most ${limits.maxFiles} files`);
  if (offset + size > eocd) throw corrupt('the central directory lies outside the archive');
  const central = new Bounded(reader.bytes, offset + size);
  const entries: CentralEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (central.u32(at) !== CENTRAL_SIGNATURE) throw corrupt(`central directory entry ${i} has no signature`);
    const flags = central.u16(at + 8);
    const nameLength = central.u16(at + 28);
    const extraLength = central.u16(at + 30);
    const commentLength = central.u16(at + 32);
    const rawName = central.slice(at + CENTRAL_SIZE, nameLength, 'an entry name');
    const entry: CentralEntry = {
      name: decodeName(rawName, (flags & 0x800) !== 0),
      rawName,
      flags,
      method: central.u16(at + 10),
      crc: central.u32(at + 16),
      compressedSize: central.u32(at + 20),
      size: central.u32(at + 24),
      localOffset: central.u32(at + 42),
      externalAttributes: central.u32(at + 38),
    };
    if (entry.compressedSize === 0xffffffff || entry.size === 0xffffffff || entry.localOffset === 0xffffffff)
      throw refuse('zip_unsupported', `entry ${quoted(entry.name)}: ZIP64 entries are not supported`);
    entries.push(entry);
    at += CENTRAL_SIZE + nameLength + extraLength + commentLength;
    central.check(at, 0, 'the central directory');
  }
  return { entries, end: offset };
}

/** The entry's path with `.` and empty segments dropped; 400 when it could leave the bundle. */
function normalizePath(name: string, limits: ZipLimits): string[] {
  const label = `entry ${quoted(name)}`;
  if (name.length > limits.maxPathLength)
    throw refuse('zip_path_too_long', `${label}: paths must be at most ${limits.maxPathLength} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw refuse('zip_invalid_path', `${label}: paths must not contain control characters`);
  if (name.includes('\\'))
    throw refuse('zip_path_escapes', `${label}: paths must use '/' (a backslash could leave the bundle)`);
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name))
    throw refuse('zip_path_escapes', `${label}: absolute paths leave the bundle`);
  const segments = name.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw refuse('zip_path_escapes', `${label}: '..' leaves the bundle`);
  return segments;
}

function fileType(entry: CentralEntry): 'file' | 'directory' {
  const label = `entry ${quoted(entry.name)}`;
  const mode = (entry.externalAttributes >>> 16) & S_IFMT;
  if (mode === S_IFLNK) throw refuse('zip_symlink', `${label} is a symbolic link; links are not allowed`);
  if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR)
    throw refuse('zip_special_file', `${label} is not a regular file or folder`);
  return entry.name.endsWith('/') || mode === S_IFDIR || (entry.externalAttributes & DOS_DIRECTORY) !== 0
    ? 'directory'
    : 'file';
}

/** Where an entry's compressed data lies, from its local header (which must agree with the central one). */
function locateData(
  reader: Bounded,
  entry: CentralEntry,
  end: number,
): { dataStart: number; dataEnd: number } {
  const label = `entry ${quoted(entry.name)}`;
  const local = new Bounded(reader.bytes, end);
  const at = entry.localOffset;
  if (local.u32(at) !== LOCAL_SIGNATURE) throw corrupt(`${label} has no local header`);
  const nameLength = local.u16(at + 26);
  const extraLength = local.u16(at + 28);
  const localName = local.slice(at + LOCAL_SIZE, nameLength, `${label}'s name`);
  if (local.u16(at + 8) !== entry.method || !sameBytes(localName, entry.rawName))
    throw corrupt(`${label}'s local header disagrees with the central directory`);
  const dataStart = at + LOCAL_SIZE + nameLength + extraLength;
  local.check(dataStart, entry.compressedSize, `${label}'s data`);
  return { dataStart, dataEnd: dataStart + entry.compressedSize };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** Inflates into exactly the declared size: 400 `zip_bomb` as soon as the data would go past it. */
function inflate(entry: CentralEntry, data: Uint8Array): Uint8Array {
  const label = `entry ${quoted(entry.name)}`;
  if (entry.method === 0) return data.slice();
  const out = new Uint8Array(entry.size);
  let written = 0;
  const inflater = new Inflate((chunk) => {
    if (written + chunk.length > entry.size)
      throw refuse('zip_bomb', `${label} inflates past its declared ${entry.size} bytes`);
    out.set(chunk, written);
    written += chunk.length;
  });
  try {
    if (data.length === 0) inflater.push(data, true);
    for (let at = 0; at < data.length; at += INFLATE_CHUNK)
      inflater.push(data.subarray(at, at + INFLATE_CHUNK), at + INFLATE_CHUNK >= data.length);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw corrupt(`${label} does not inflate (${error instanceof Error ? error.message : String(error)})`);
  }
  if (written !== entry.size)
    throw corrupt(`${label} inflates to ${written} bytes, not the declared ${entry.size}`);
  return out;
}

function extract(entry: CentralEntry, bytes: Uint8Array): Uint8Array {
  const data = inflate(entry, bytes);
  if (crc32(data) >>> 0 !== entry.crc >>> 0)
    throw corrupt(`entry ${quoted(entry.name)} fails its CRC-32 check`);
  return data;
}

/** macOS Finder's companions (`__MACOSX/…`, `.DS_Store`): checked like the rest, then left out. */
function isJunk(segments: string[]): boolean {
  return segments[0] === '__MACOSX' || segments[segments.length - 1] === '.DS_Store';
}

/** Every check that needs no inflating, entry by entry in central-directory order, then the whole. */
function checkEntries(reader: Bounded, entries: CentralEntry[], end: number, limits: ZipLimits): FileEntry[] {
  const files: FileEntry[] = [];
  const seen = new Map<string, string>();
  const folders = new Map<string, string>();
  let total = 0;
  let compressed = 0;
  for (const entry of entries) {
    const label = `entry ${quoted(entry.name)}`;
    const segments = normalizePath(entry.name, limits);
    const type = fileType(entry);
    for (let depth = 1; depth < segments.length + (type === 'directory' ? 1 : 0); depth++)
      folders.set(segments.slice(0, depth).join('/').toLowerCase(), entry.name);
    if (type === 'directory') continue;
    if (segments.length === 0) throw refuse('zip_invalid_path', `${label}: a file needs a name`);
    if ((entry.flags & 0x1) !== 0) throw refuse('zip_unsupported', `${label} is encrypted`);
    if (entry.method !== 0 && entry.method !== 8)
      throw refuse(
        'zip_unsupported',
        `${label} uses compression method ${entry.method} (only stored and deflate)`,
      );
    if (entry.method === 0 && entry.compressedSize !== entry.size)
      throw corrupt(`${label} is stored with two different sizes`);
    if (entry.size > limits.ratioFromBytes && entry.size > entry.compressedSize * limits.maxRatio)
      throw refuse(
        'zip_bomb',
        `${label} inflates ${entry.compressedSize} bytes to ${entry.size}, more than ${limits.maxRatio} times`,
      );
    if (entry.size > limits.maxFileBytes)
      throw refuse(
        'zip_too_large',
        `${label} is ${entry.size} bytes; at most ${limits.maxFileBytes} per file`,
      );
    total += entry.size;
    compressed += entry.compressedSize;
    if (total > limits.maxTotalBytes)
      throw refuse('zip_too_large', `the files of the zip exceed ${limits.maxTotalBytes} bytes in all`);
    if (files.length + 1 > limits.maxFiles)
      throw refuse('zip_too_many_files', `the zip holds more than ${limits.maxFiles} files`);
    const path = segments.join('/');
    const twin = seen.get(path.toLowerCase());
    if (twin !== undefined)
      throw refuse('zip_duplicate_entry', `${label} repeats the path of entry ${quoted(twin)}`);
    seen.set(path.toLowerCase(), entry.name);
    files.push({ entry, path, ...locateData(reader, entry, end) });
  }
  for (const [path, name] of seen) {
    const folder = folders.get(path);
    if (folder !== undefined)
      throw refuse(
        'zip_duplicate_entry',
        `entry ${quoted(name)} is both a file and the folder of ${quoted(folder)}`,
      );
  }
  if (total > limits.ratioFromBytes && total > compressed * limits.maxRatio)
    throw refuse(
      'zip_bomb',
      `the zip inflates ${compressed} bytes to ${total}, more than ${limits.maxRatio} times`,
    );
  // Entries sharing compressed bytes (the overlapping-files bomb) are refused.
  const byOffset = [...files].sort((a, b) => a.entry.localOffset - b.entry.localOffset);
  for (let i = 1; i < byOffset.length; i++)
    if (byOffset[i].entry.localOffset < byOffset[i - 1].dataEnd)
      throw refuse(
        'zip_bomb',
        `entry ${quoted(byOffset[i].entry.name)} overlaps entry ${quoted(byOffset[i - 1].entry.name)}`,
      );
  return files;
}

/** The folder holding SKILL.md: the root, or the single top-level folder every file is in. */
function skillRoot(files: FileEntry[]): string {
  if (files.some((file) => file.path === 'SKILL.md')) return '';
  const tops = new Set(files.map((file) => (file.path.includes('/') ? file.path.split('/')[0] : '')));
  const [top] = tops;
  if (tops.size === 1 && top && files.some((file) => file.path === `${top}/SKILL.md`)) return `${top}/`;
  throw refuse(
    'zip_missing_skill_md',
    'the zip must hold SKILL.md at its root, or inside a single top-level folder holding everything else',
  );
}

/**
 * Reads a Skill zip (400 ValidationError with `param: 'file'` naming the refused entry): the manifest from its
 * SKILL.md and every other file as a reference file. Only reads `bytes`; nothing is written.
 */
export function readSkillZip(bytes: Uint8Array, limits?: Partial<ZipLimits>): SkillBundle {
  const bounds: ZipLimits = { ...ZIP_LIMITS, ...limits };
  if (bytes.length > bounds.maxZipBytes)
    throw refuse(
      'zip_too_large',
      `the zip must be at most ${bounds.maxZipBytes} bytes (got ${bytes.length})`,
    );
  const reader = new Bounded(bytes);
  const { entries, end } = readCentralDirectory(reader, bounds);
  const files = checkEntries(reader, entries, end, bounds).filter((file) => !isJunk(file.path.split('/')));
  const root = skillRoot(files);
  const skillMd = files.find((file) => file.path === `${root}SKILL.md`);
  if (!skillMd) throw refuse('zip_missing_skill_md', 'the zip must hold SKILL.md');
  if (skillMd.entry.size > MAX_SKILL_MD_BYTES)
    throw refuse(
      'skill_md_too_large',
      `SKILL.md must be at most ${MAX_SKILL_MD_BYTES} bytes (got ${skillMd.entry.size})`,
    );
  const manifest = parseSkillMarkdown(
    decodeSkillMarkdown(extract(skillMd.entry, bytes.subarray(skillMd.dataStart, skillMd.dataEnd)), PARAM),
    PARAM,
  );
  return {
    manifest,
    files: files
      .filter((file) => file !== skillMd)
      .map((file) => ({
        path: file.path.slice(root.length),
        bytes: extract(file.entry, bytes.subarray(file.dataStart, file.dataEnd)),
      })),
  };
}
