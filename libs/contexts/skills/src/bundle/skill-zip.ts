// A Skill uploaded as a zip: SKILL.md (at the root, or in the one top-level folder) plus reference files.
// Nothing is written anywhere. The archive is read by yauzl (`fromBuffer`, `lazyEntries`, `validateEntrySizes`,
// names left undecoded so that no name is rewritten before our checks see it): the central directory first, entry by
// entry, so paths, links, counts, sizes and ratios are refused BEFORE any inflating; then each file is inflated as a
// stream that is stopped as soon as it passes its declared size, and its CRC-32 is checked.
// What yauzl does not decide is the refusal policy below, and the fields read from the end record yauzl has
// already located (to refuse ZIP64 and multi-part archives: a Skill never needs them). yauzl's own errors are 400
// `zip_corrupt` (or `zip_unsupported` for the archive kinds it names), never a 5xx.
// Over 300 lines on purpose: the refusal policy of one uploaded archive (paths, links, counts, sizes, ratios,
// overlaps) stays in one file with the reading that applies it.
import { crc32 } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { lazyModule, ValidationError } from '#kernel';
import {
  decodeSkillMarkdown,
  MAX_SKILL_MD_BYTES,
  parseSkillMarkdown,
  quoted,
  type SkillManifest,
} from './skill-manifest.js';

// yauzl is required at the first Skill zip, not at start-up.
const yauzl = lazyModule<typeof import('yauzl')>('yauzl');

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
const EOCD_SIZE = 22;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const DOS_DIRECTORY = 0x10;
const ZIP64_EXTRA = 0x0001;

interface FileEntry {
  entry: Entry;
  /** The decoded name, as the archive spells it (for messages). */
  name: string;
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

/** One of yauzl's errors as a 400: the archive kinds it does not read are unsupported, anything else is corrupt. */
function fromYauzl(error: unknown, label?: string): ValidationError {
  if (error instanceof ValidationError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/multi-disk/i.test(message)) return refuse('zip_unsupported', 'multi-part archives are not supported');
  if (/zip64/i.test(message)) return refuse('zip_unsupported', 'ZIP64 archives are not supported');
  if (/encryption/i.test(message))
    return refuse('zip_unsupported', `${label ?? 'an entry'} is encrypted (${message})`);
  // yauzl expects a stored entry's compressed size to be its size, plus 12 when encrypted: equal sizes refused
  // there mean an encrypted entry (refused as such, like the encrypted entries yauzl lets through).
  const stored = /size mismatch for stored file: (\d+) != (\d+)/.exec(message);
  if (stored && stored[1] === stored[2]) return refuse('zip_unsupported', 'an entry is encrypted');
  return corrupt(label ? `${label}: ${message}` : message);
}

/**
 * The end record yauzl found: it insists the comment ends exactly at the end of the file, so the record is the
 * 22 bytes before the comment. Refuses ZIP64 (its markers) and multi-part archives; returns where the central
 * directory starts (entries' data must lie before it).
 */
function checkEndRecord(bytes: Buffer, zip: ZipFile, limits: ZipLimits): number {
  const comment = zip.comment as unknown as Buffer;
  const at = bytes.length - EOCD_SIZE - comment.length;
  if (at < 0) throw corrupt('no end of central directory record');
  const disk = bytes.readUInt16LE(at + 4);
  const centralDisk = bytes.readUInt16LE(at + 6);
  const entriesHere = bytes.readUInt16LE(at + 8);
  const count = bytes.readUInt16LE(at + 10);
  const size = bytes.readUInt32LE(at + 12);
  const offset = bytes.readUInt32LE(at + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff)
    throw refuse('zip_unsupported', 'ZIP64 archives are not supported');
  if (disk !== 0 || centralDisk !== 0 || entriesHere !== count)
    throw refuse('zip_unsupported', 'multi-part archives are not supported');
  // Folders are entries too: allow as many as files before reading any entry.
  if (zip.entryCount > 2 * limits.maxFiles)
    throw refuse(
      'zip_too_many_files',
      `the zip holds ${zip.entryCount} entries; at most ${limits.maxFiles} files`,
    );
  if (offset + size > at) throw corrupt('the central directory lies outside the archive');
  return offset;
}

/** UTF-8 when it is (flagged or not); otherwise CP437 as the format says, backslashes kept for the checks. */
function decodeName(entry: Entry): string {
  const raw = entry.fileNameRaw;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    if ((entry.generalPurposeBitFlag & 0x800) !== 0)
      throw refuse('zip_invalid_path', 'an entry name is not valid UTF-8');
    return yauzl().getFileNameLowLevel(entry.generalPurposeBitFlag, raw, [], true);
  }
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

function fileType(entry: Entry, name: string): 'file' | 'directory' {
  const label = `entry ${quoted(name)}`;
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (mode === S_IFLNK) throw refuse('zip_symlink', `${label} is a symbolic link; links are not allowed`);
  if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR)
    throw refuse('zip_special_file', `${label} is not a regular file or folder`);
  return name.endsWith('/') || mode === S_IFDIR || (entry.externalFileAttributes & DOS_DIRECTORY) !== 0
    ? 'directory'
    : 'file';
}

/** Where an entry's compressed data lies, from its local header (which must agree with the central one). */
async function locateData(
  zip: ZipFile,
  entry: Entry,
  name: string,
  centralStart: number,
): Promise<{ dataStart: number; dataEnd: number }> {
  const label = `entry ${quoted(name)}`;
  const local = await zip.readLocalFileHeaderPromise(entry).catch((error: unknown) => {
    throw fromYauzl(error, label);
  });
  if (local.compressionMethod !== entry.compressionMethod || !local.fileName.equals(entry.fileNameRaw))
    throw corrupt(`${label}'s local header disagrees with the central directory`);
  const dataEnd = local.fileDataStart + entry.compressedSize;
  if (dataEnd > centralStart) throw corrupt(`${label}'s data lies outside the archive`);
  return { dataStart: local.fileDataStart, dataEnd };
}

/**
 * Inflates a file into exactly its declared size: 400 `zip_bomb` as soon as the data would go past it (the stream is
 * destroyed there, by yauzl's size check or by ours), `zip_corrupt` when it is short or fails its CRC-32.
 */
async function extract(zip: ZipFile, file: FileEntry): Promise<Uint8Array> {
  const { entry } = file;
  const label = `entry ${quoted(file.name)}`;
  const pastSize = (): ValidationError =>
    refuse('zip_bomb', `${label} inflates past its declared ${entry.uncompressedSize} bytes`);
  const out = Buffer.alloc(entry.uncompressedSize);
  let written = 0;
  try {
    const stream = await zip.openReadStreamPromise(entry);
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => {
        if (written + chunk.length > out.length) {
          stream.destroy();
          reject(pastSize());
          return;
        }
        chunk.copy(out, written);
        written += chunk.length;
      });
      // Every error (yauzl may forward the inflater's after its own) is caught here; the first one decides.
      stream.on('error', (error) => {
        stream.destroy();
        reject(error);
      });
      stream.once('end', resolve);
    });
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/^too many bytes/.test(message)) throw pastSize();
    if (/^not enough bytes/.test(message))
      throw corrupt(`${label} inflates to fewer bytes than the declared ${entry.uncompressedSize}`);
    throw corrupt(`${label} does not inflate (${message})`);
  }
  if (written !== out.length)
    throw corrupt(`${label} inflates to ${written} bytes, not the declared ${entry.uncompressedSize}`);
  if (crc32(out) >>> 0 !== entry.crc32 >>> 0) throw corrupt(`${label} fails its CRC-32 check`);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** macOS Finder's companions (`__MACOSX/…`, `.DS_Store`): checked like the rest, then left out. */
function isJunk(segments: string[]): boolean {
  return segments[0] === '__MACOSX' || segments[segments.length - 1] === '.DS_Store';
}

/** Every check that needs no inflating, entry by entry in central-directory order, then the whole. */
async function checkEntries(zip: ZipFile, centralStart: number, limits: ZipLimits): Promise<FileEntry[]> {
  const files: FileEntry[] = [];
  const seen = new Map<string, string>();
  const folders = new Map<string, string>();
  let total = 0;
  let compressed = 0;
  const entries = zip.eachEntry();
  for (;;) {
    const next = await entries.next().catch((error: unknown) => {
      throw fromYauzl(error);
    });
    if (next.done) break;
    const entry = next.value;
    const name = decodeName(entry);
    const label = `entry ${quoted(name)}`;
    if (
      entry.extraFields.some((field) => field.id === ZIP64_EXTRA) ||
      [entry.compressedSize, entry.uncompressedSize, entry.relativeOffsetOfLocalHeader].includes(0xffffffff)
    )
      throw refuse('zip_unsupported', `${label}: ZIP64 entries are not supported`);
    const segments = normalizePath(name, limits);
    const type = fileType(entry, name);
    for (let depth = 1; depth < segments.length + (type === 'directory' ? 1 : 0); depth++)
      folders.set(segments.slice(0, depth).join('/').toLowerCase(), name);
    if (type === 'directory') continue;
    if (segments.length === 0) throw refuse('zip_invalid_path', `${label}: a file needs a name`);
    if (entry.isEncrypted()) throw refuse('zip_unsupported', `${label} is encrypted`);
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
      throw refuse(
        'zip_unsupported',
        `${label} uses compression method ${entry.compressionMethod} (only stored and deflate)`,
      );
    if (entry.compressionMethod === 0 && entry.compressedSize !== entry.uncompressedSize)
      throw corrupt(`${label} is stored with two different sizes`);
    const size = entry.uncompressedSize;
    if (size > limits.ratioFromBytes && size > entry.compressedSize * limits.maxRatio)
      throw refuse(
        'zip_bomb',
        `${label} inflates ${entry.compressedSize} bytes to ${size}, more than ${limits.maxRatio} times`,
      );
    if (size > limits.maxFileBytes)
      throw refuse('zip_too_large', `${label} is ${size} bytes; at most ${limits.maxFileBytes} per file`);
    total += size;
    compressed += entry.compressedSize;
    if (total > limits.maxTotalBytes)
      throw refuse('zip_too_large', `the files of the zip exceed ${limits.maxTotalBytes} bytes in all`);
    if (files.length + 1 > limits.maxFiles)
      throw refuse('zip_too_many_files', `the zip holds more than ${limits.maxFiles} files`);
    const path = segments.join('/');
    const twin = seen.get(path.toLowerCase());
    if (twin !== undefined)
      throw refuse('zip_duplicate_entry', `${label} repeats the path of entry ${quoted(twin)}`);
    seen.set(path.toLowerCase(), name);
    files.push({ entry, name, path, ...(await locateData(zip, entry, name, centralStart)) });
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
  const byOffset = [...files].sort(
    (a, b) => a.entry.relativeOffsetOfLocalHeader - b.entry.relativeOffsetOfLocalHeader,
  );
  for (let i = 1; i < byOffset.length; i++)
    if (byOffset[i].entry.relativeOffsetOfLocalHeader < byOffset[i - 1].dataEnd)
      throw refuse(
        'zip_bomb',
        `entry ${quoted(byOffset[i].name)} overlaps entry ${quoted(byOffset[i - 1].name)}`,
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
export async function readSkillZip(bytes: Uint8Array, limits?: Partial<ZipLimits>): Promise<SkillBundle> {
  const bounds: ZipLimits = { ...ZIP_LIMITS, ...limits };
  if (bytes.length > bounds.maxZipBytes)
    throw refuse(
      'zip_too_large',
      `the zip must be at most ${bounds.maxZipBytes} bytes (got ${bytes.length})`,
    );
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const zip = await yauzl()
    .fromBufferPromise(buffer, {
      lazyEntries: true,
      validateEntrySizes: true,
      // Names and comments stay bytes: decoded names would have backslashes turned into '/' and '..' refused with
      // yauzl's words; ours are checked and named below.
      decodeStrings: false,
    })
    .catch((error: unknown) => {
      throw fromYauzl(error);
    });
  try {
    const centralStart = checkEndRecord(buffer, zip, bounds);
    const files = (await checkEntries(zip, centralStart, bounds)).filter(
      (file) => !isJunk(file.path.split('/')),
    );
    const root = skillRoot(files);
    const skillMd = files.find((file) => file.path === `${root}SKILL.md`);
    if (!skillMd) throw refuse('zip_missing_skill_md', 'the zip must hold SKILL.md');
    if (skillMd.entry.uncompressedSize > MAX_SKILL_MD_BYTES)
      throw refuse(
        'skill_md_too_large',
        `SKILL.md must be at most ${MAX_SKILL_MD_BYTES} bytes (got ${skillMd.entry.uncompressedSize})`,
      );
    const manifest = parseSkillMarkdown(decodeSkillMarkdown(await extract(zip, skillMd), PARAM), PARAM);
    const references: SkillFile[] = [];
    for (const file of files)
      if (file !== skillMd)
        references.push({ path: file.path.slice(root.length), bytes: await extract(zip, file) });
    return { manifest, files: references };
  } finally {
    zip.close();
  }
}
