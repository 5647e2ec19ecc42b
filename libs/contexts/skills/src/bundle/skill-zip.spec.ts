import { crc32 } from 'node:zlib';
import { deflateSync, inflateSync, strToU8, zipSync } from 'fflate';
import { ValidationError } from '#kernel';
import { readSkillZip, ZIP_LIMITS } from './skill-zip.js';

async function refusal(run: () => Promise<unknown>): Promise<ValidationError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

const SKILL_MD =
  '---\nname: pdf-tools\ndescription: Fills PDF forms.\n---\n\n# PDF tools\n\nSee references/api.md.\n';
const MIB = 1024 * 1024;

// A raw zip writer for what fflate's zipSync cannot produce: Unix modes, unsafe names, lying sizes, shared data.
interface RawEntry {
  name: string;
  /** The inflated bytes (empty by default). */
  content?: Uint8Array;
  deflate?: boolean;
  /** The bytes written as the entry's data (by default the content, deflated when `deflate`). */
  data?: Uint8Array;
  /** Declared sizes and checksum (by default the true ones). */
  size?: number;
  crc?: number;
  method?: number;
  flags?: number;
  /** The upper 16 bits are the Unix mode. */
  externalAttributes?: number;
  /** Points the central directory at this offset, and writes no local record of the entry. */
  localOffset?: number;
}

function u16(value: number): number[] {
  return [value & 0xff, (value >>> 8) & 0xff];
}

function u32(value: number): number[] {
  return [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff];
}

function entryData(entry: RawEntry): { data: Uint8Array; method: number; size: number; crc: number } {
  const content = entry.content ?? new Uint8Array(0);
  return {
    data: entry.data ?? (entry.deflate ? deflateSync(content) : content),
    method: entry.method ?? (entry.deflate ? 8 : 0),
    size: entry.size ?? content.length,
    crc: entry.crc ?? crc32(content),
  };
}

/** A local file record: header, name, data. */
function localRecord(entry: RawEntry): Uint8Array {
  const name = strToU8(entry.name);
  const { data, method, size, crc } = entryData(entry);
  return Uint8Array.from([
    ...u32(0x04034b50),
    ...u16(20),
    ...u16(entry.flags ?? 0x800),
    ...u16(method),
    ...u32(0),
    ...u32(crc),
    ...u32(data.length),
    ...u32(size),
    ...u16(name.length),
    ...u16(0),
    ...name,
    ...data,
  ]);
}

function rawZip(entries: RawEntry[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const central: number[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = strToU8(entry.name);
    const { data, method, size, crc } = entryData(entry);
    const localOffset = entry.localOffset ?? offset;
    if (entry.localOffset === undefined) {
      const local = localRecord(entry);
      locals.push(local);
      offset += local.length;
    }
    central.push(
      ...u32(0x02014b50),
      ...u16((3 << 8) | 20),
      ...u16(20),
      ...u16(entry.flags ?? 0x800),
      ...u16(method),
      ...u32(0),
      ...u32(crc),
      ...u32(data.length),
      ...u32(size),
      ...u16(name.length),
      ...u16(0),
      ...u16(0),
      ...u16(0),
      ...u16(0),
      ...u32(entry.externalAttributes ?? (0o100644 << 16) >>> 0),
      ...u32(localOffset),
      ...name,
    );
  }
  const end = [
    ...u32(0x06054b50),
    ...u16(0),
    ...u16(0),
    ...u16(entries.length),
    ...u16(entries.length),
    ...u32(central.length),
    ...u32(offset),
    ...u16(0),
  ];
  return concat([...locals, Uint8Array.from(central), Uint8Array.from(end)]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * A raw DEFLATE stream of `size` zeros written by hand with fixed Huffman codes (a literal 0, then matches of
 * length 258 at distance 1: 13 bits per 258 bytes), so a 100 MiB bomb costs milliseconds to build.
 */
function deflatedZeros(size: number): Uint8Array {
  const out = new Uint8Array(Math.ceil(((size / 258) * 13 + 300 * 8) / 8) + 16);
  let bit = 0;
  const put = (value: number, count: number) => {
    for (let i = 0; i < count; i++, bit++) if ((value >>> i) & 1) out[bit >>> 3] |= 1 << (bit & 7);
  };
  const code = (value: number, count: number) => {
    for (let i = count - 1; i >= 0; i--, bit++) if ((value >>> i) & 1) out[bit >>> 3] |= 1 << (bit & 7);
  };
  put(1, 1); // the final block
  put(1, 2); // fixed Huffman codes
  const matches = Math.floor((size - 1) / 258);
  const literals = size - matches * 258;
  for (let i = 0; i < literals; i++) code(0b00110000, 8); // the literal 0
  for (let i = 0; i < matches; i++) {
    code(0b11000101, 8); // length code 285: 258 bytes
    code(0, 5); // distance code 0: distance 1
  }
  code(0, 7); // end of block
  return out.subarray(0, Math.ceil(bit / 8));
}

const skillMdEntry: RawEntry = { name: 'SKILL.md', content: strToU8(SKILL_MD) };

describe('reading a Skill zip', () => {
  it('round-trips a good bundle with two reference files', async () => {
    const api = strToU8('# API\n\nCall fill(form).\n'.repeat(50));
    const script = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251);
    const bundle = await readSkillZip(
      zipSync({
        'SKILL.md': strToU8(SKILL_MD),
        references: { 'api.md': api },
        scripts: { 'fill.py': [script, { level: 0 }] },
      }),
    );
    expect(bundle.manifest).toEqual({
      name: 'pdf-tools',
      description: 'Fills PDF forms.',
      instructions: '# PDF tools\n\nSee references/api.md.',
    });
    expect(bundle.files.map((file) => file.path).sort()).toEqual(['references/api.md', 'scripts/fill.py']);
    expect(bundle.files.find((file) => file.path === 'references/api.md')?.bytes).toEqual(api);
    expect(bundle.files.find((file) => file.path === 'scripts/fill.py')?.bytes).toEqual(script);
  });

  it('strips the single top-level folder holding SKILL.md, skipping folders and macOS companions', async () => {
    const bundle = await readSkillZip(
      rawZip([
        { name: 'pdf-tools/', externalAttributes: (0o40755 << 16) >>> 0 },
        { name: 'pdf-tools/SKILL.md', content: strToU8(SKILL_MD), deflate: true },
        { name: 'pdf-tools/references/', externalAttributes: 0x10 },
        { name: 'pdf-tools/references/api.md', content: strToU8('# API'), deflate: true },
        { name: 'pdf-tools/./forms.md', content: strToU8('forms') },
        { name: 'pdf-tools/.DS_Store', content: strToU8('junk') },
        { name: '__MACOSX/pdf-tools/._SKILL.md', content: strToU8('junk') },
      ]),
    );
    expect(bundle.manifest.name).toBe('pdf-tools');
    expect(bundle.files).toEqual([
      { path: 'references/api.md', bytes: strToU8('# API') },
      { path: 'forms.md', bytes: strToU8('forms') },
    ]);
  });

  it('keeps a SKILL.md below the root as a reference file', async () => {
    const bundle = await readSkillZip(
      zipSync({ 'SKILL.md': strToU8(SKILL_MD), examples: { 'SKILL.md': strToU8('example') } }),
    );
    expect(bundle.files.map((file) => file.path)).toEqual(['examples/SKILL.md']);
  });

  it.each([
    ['no SKILL.md', { 'README.md': strToU8('# Readme') }],
    ['a lowercase skill.md', { 'skill.md': strToU8(SKILL_MD) }],
    ['SKILL.md two folders deep', { a: { b: { 'SKILL.md': strToU8(SKILL_MD) } } }],
    [
      'SKILL.md in one of two top folders',
      { a: { 'SKILL.md': strToU8(SKILL_MD) }, b: { 'x.md': strToU8('x') } },
    ],
    [
      'SKILL.md in a folder beside a root file',
      { a: { 'SKILL.md': strToU8(SKILL_MD) }, 'x.md': strToU8('x') },
    ],
    ['an empty zip', {}],
  ])('refuses %s with 400 zip_missing_skill_md', async (_case, files) => {
    expect(await refusal(() => readSkillZip(zipSync(files)))).toMatchObject({
      code: 'zip_missing_skill_md',
      param: 'file',
    });
  });

  it.each([
    ['no frontmatter', '# Title\n\nBody', 'invalid_frontmatter'],
    ['malformed YAML', '---\nname: [a\n---\nBody', 'invalid_frontmatter'],
    ['an unknown key', '---\nname: a\ndescription: d\nauthor: me\n---\nBody', 'unknown_frontmatter_key'],
    ['a bad name', '---\nname: A_B\ndescription: d\n---\nBody', 'invalid_name'],
    ['no instructions', '---\nname: a\ndescription: d\n---\n', 'invalid_instructions'],
  ])('refuses a SKILL.md with %s (the errors of parseSkillMarkdown)', async (_case, text, code) => {
    expect(await refusal(() => readSkillZip(zipSync({ 'SKILL.md': strToU8(text) })))).toMatchObject({
      code,
      param: 'file',
    });
  });

  it('refuses a SKILL.md over 1 MiB before inflating it', async () => {
    const big = { name: 'SKILL.md', content: new Uint8Array(MIB + 1), crc: 0 };
    expect(await refusal(() => readSkillZip(rawZip([big])))).toMatchObject({
      code: 'skill_md_too_large',
      param: 'file',
    });
  });

  it('refuses a SKILL.md that is not UTF-8', async () => {
    const bytes = zipSync({ 'SKILL.md': new Uint8Array([0x2d, 0x2d, 0x2d, 0xff]) });
    expect(await refusal(() => readSkillZip(bytes))).toMatchObject({ code: 'invalid_encoding' });
  });
});

describe('refusing malicious zips', () => {
  it.each([
    '../evil.md',
    'references/../../evil.md',
    '..',
    '/etc/passwd',
    '/SKILL.md',
    'C:/Windows/evil.md',
    'c:evil.md',
    'references\\..\\..\\evil.md',
    'references\\api.md',
  ])('refuses the entry %j with 400 zip_path_escapes, naming it', async (name) => {
    const error = await refusal(() => readSkillZip(rawZip([skillMdEntry, { name, content: strToU8('x') }])));
    expect(error).toMatchObject({ kind: 'validation', code: 'zip_path_escapes', param: 'file' });
    expect(error.message).toContain(JSON.stringify(name));
  });

  it('refuses a folder entry that escapes too', async () => {
    expect(await refusal(() => readSkillZip(rawZip([skillMdEntry, { name: '../up/' }])))).toMatchObject({
      code: 'zip_path_escapes',
    });
  });

  it('refuses a symbolic link (the Unix mode in the external attributes), naming it', async () => {
    const link = { name: 'references/passwd', content: strToU8('/etc/passwd') };
    const error = await refusal(() =>
      readSkillZip(rawZip([skillMdEntry, { ...link, externalAttributes: (0o120777 << 16) >>> 0 }])),
    );
    expect(error).toMatchObject({ code: 'zip_symlink', param: 'file' });
    expect(error.message).toContain('"references/passwd"');
  });

  it('refuses a link to a folder, and other special files', async () => {
    const linkedFolder = { name: 'up/', externalAttributes: (0o120755 << 16) >>> 0 };
    expect(await refusal(() => readSkillZip(rawZip([skillMdEntry, linkedFolder])))).toMatchObject({
      code: 'zip_symlink',
    });
    const fifo = { name: 'pipe', externalAttributes: (0o010644 << 16) >>> 0 };
    expect(await refusal(() => readSkillZip(rawZip([skillMdEntry, fifo])))).toMatchObject({
      code: 'zip_special_file',
    });
  });

  it('refuses control characters and overlong paths', async () => {
    expect(await refusal(() => readSkillZip(rawZip([skillMdEntry, { name: 'a\u0000.md' }])))).toMatchObject({
      code: 'zip_invalid_path',
    });
    const long = `${'d/'.repeat(127)}ab`;
    expect(long).toHaveLength(256);
    expect(await refusal(() => readSkillZip(rawZip([skillMdEntry, { name: long }])))).toMatchObject({
      code: 'zip_path_too_long',
    });
    expect((await readSkillZip(rawZip([skillMdEntry, { name: long.slice(0, 255) }]))).files).toHaveLength(1);
  });

  it.each([
    ['the same name twice', ['references/a.md', 'references/a.md']],
    ['names differing in case', ['references/a.md', 'References/A.md']],
    ['names equal once normalized', ['references/a.md', 'references//./a.md']],
    ['two SKILL.md', ['SKILL.md']],
    ['a file that is also a folder', ['references', 'references/a.md']],
    ['a file that is also a folder entry', ['references/', 'references']],
  ])('refuses %s with 400 zip_duplicate_entry', async (_case, names) => {
    const entries = names.map((name) => ({ name, content: strToU8('x') }));
    const error = await refusal(() => readSkillZip(rawZip([skillMdEntry, ...entries])));
    expect(error).toMatchObject({ code: 'zip_duplicate_entry', param: 'file' });
    expect(error.message).toContain(JSON.stringify(names[names.length - 1]));
  });

  it('refuses 10,000 files before reading any entry with 400 zip_too_many_files', async () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}` }));
    const error = await refusal(() => readSkillZip(rawZip([skillMdEntry, ...entries])));
    expect(error).toMatchObject({ code: 'zip_too_many_files', param: 'file' });
  });

  it('holds at most 200 files, SKILL.md included', async () => {
    const files = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `r/${i}.md` }));
    expect((await readSkillZip(rawZip([skillMdEntry, ...files(199)]))).files).toHaveLength(199);
    expect(await refusal(() => readSkillZip(rawZip([skillMdEntry, ...files(200)])))).toMatchObject({
      code: 'zip_too_many_files',
    });
    expect(
      await refusal(() => readSkillZip(rawZip([skillMdEntry, ...files(2)]), { maxFiles: 2 })),
    ).toMatchObject({
      code: 'zip_too_many_files',
    });
  });

  it('refuses a 100 MiB entry of zeros (a bomb) from its declared sizes, before inflating', async () => {
    const zeros = deflatedZeros(100 * MIB);
    expect(zeros.length).toBeLessThan(MIB);
    const bomb = rawZip([
      skillMdEntry,
      { name: 'zeros.bin', method: 8, data: zeros, size: 100 * MIB, crc: 0 },
    ]);
    expect(await refusal(() => readSkillZip(bomb))).toMatchObject({ code: 'zip_bomb', param: 'file' });
  });

  it('checks the hand-written DEFLATE stream of zeros', () => {
    const inflated = inflateSync(deflatedZeros(1000));
    expect(inflated).toEqual(new Uint8Array(1000));
  });

  it('refuses an entry whose header lies about its size, as soon as inflating passes it', async () => {
    const liar = { name: 'small.txt', method: 8, data: deflatedZeros(100 * MIB), size: 1000, crc: 0 };
    const error = await refusal(() => readSkillZip(rawZip([skillMdEntry, liar])));
    expect(error).toMatchObject({ code: 'zip_bomb', param: 'file' });
    expect(error.message).toContain('"small.txt" inflates past its declared 1000 bytes');
  });

  it('refuses a compression ratio past the limit per entry and over the whole zip', async () => {
    const zeros = (name: string, size: number) => ({ name, content: new Uint8Array(size), deflate: true });
    expect(
      await refusal(() =>
        readSkillZip(rawZip([skillMdEntry, zeros('z', 200_000)]), { ratioFromBytes: 100_000 }),
      ),
    ).toMatchObject({ code: 'zip_bomb' });
    const many = Array.from({ length: 10 }, (_, i) => zeros(`z${i}`, 40_000));
    const error = await refusal(() =>
      readSkillZip(rawZip([skillMdEntry, ...many]), { ratioFromBytes: 100_000 }),
    );
    expect(error).toMatchObject({ code: 'zip_bomb' });
    expect(error.message).toContain('the zip inflates');
    // Small files compress as they like below the floor (1 MiB by default).
    expect((await readSkillZip(rawZip([skillMdEntry, ...many]))).files).toHaveLength(10);
  });

  it('refuses entries sharing compressed bytes (overlapping files)', async () => {
    const inner = { name: 'b.md', content: strToU8('shared') };
    const outer = { name: 'a.md', content: localRecord(inner) };
    const error = await refusal(() =>
      readSkillZip(rawZip([outer, { ...inner, localOffset: 30 + 'a.md'.length }, skillMdEntry])),
    );
    expect(error).toMatchObject({ code: 'zip_bomb' });
    expect(error.message).toContain('overlaps');
  });

  it('refuses too many bytes: the zip, a file, all files', async () => {
    const random = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7919 + 13) % 256);
    const zip = rawZip([
      skillMdEntry,
      { name: 'a.bin', content: random },
      { name: 'b.bin', content: random },
    ]);
    expect((await readSkillZip(zip)).files).toHaveLength(2);
    expect(await refusal(() => readSkillZip(zip, { maxZipBytes: 1000 }))).toMatchObject({
      code: 'zip_too_large',
    });
    const file = await refusal(() => readSkillZip(zip, { maxFileBytes: 2999 }));
    expect(file).toMatchObject({ code: 'zip_too_large' });
    expect(file.message).toContain('"a.bin"');
    expect(await refusal(() => readSkillZip(zip, { maxTotalBytes: 5000 }))).toMatchObject({
      code: 'zip_too_large',
    });
    expect(ZIP_LIMITS).toEqual({
      maxZipBytes: 10 * MIB,
      maxFiles: 200,
      maxTotalBytes: 50 * MIB,
      maxFileBytes: 10 * MIB,
      maxRatio: 100,
      ratioFromBytes: MIB,
      maxPathLength: 255,
    });
  });

  it('refuses encrypted entries and unknown compression methods', async () => {
    expect(
      await refusal(() =>
        readSkillZip(rawZip([skillMdEntry, { name: 'x', content: strToU8('x'), flags: 0x801 }])),
      ),
    ).toMatchObject({ code: 'zip_unsupported' });
    expect(
      await refusal(() =>
        readSkillZip(rawZip([skillMdEntry, { name: 'x', content: strToU8('x'), method: 12 }])),
      ),
    ).toMatchObject({ code: 'zip_unsupported' });
  });

  it('refuses an encrypted stored entry that carries its 12-byte encryption header (sizes that agree)', async () => {
    const content = strToU8('secret');
    const header = Uint8Array.from({ length: 12 }, (_, i) => i * 17);
    const encrypted = { name: 'x', content, data: concat([header, content]), flags: 0x801 };
    const error = await refusal(() => readSkillZip(rawZip([skillMdEntry, encrypted])));
    expect(error).toMatchObject({ code: 'zip_unsupported', param: 'file' });
    expect(error.message).toContain('"x" is encrypted');
  });

  it.each([
    ['no bytes', () => new Uint8Array(0)],
    ['text', () => strToU8('---\nname: a\n---\n'.repeat(10))],
    ['a truncated zip', () => zipSync({ 'SKILL.md': strToU8(SKILL_MD) }).subarray(0, 60)],
    ['a zip cut at its end', () => zipSync({ 'SKILL.md': strToU8(SKILL_MD) }).subarray(0, -5)],
    [
      'a central directory past the end',
      () => {
        const zip = rawZip([skillMdEntry]);
        zip.set([0xff, 0xff, 0xff, 0x7f], zip.length - 6); // the central directory's offset
        return zip;
      },
    ],
    ['a local header offset past the end', () => rawZip([{ ...skillMdEntry, localOffset: 0x7fffffff }])],
    ['a wrong CRC-32', () => rawZip([{ ...skillMdEntry, crc: 1234 }])],
    ['a wrong CRC-32 in a deflated entry', () => rawZip([{ ...skillMdEntry, deflate: true, crc: 1234 }])],
    ['stored sizes that differ', () => rawZip([{ ...skillMdEntry, size: 10 }])],
    ['an entry shorter than declared', () => rawZip([{ ...skillMdEntry, deflate: true, size: 500 }])],
    [
      'garbage deflate data',
      () => rawZip([{ ...skillMdEntry, method: 8, data: new Uint8Array([0xff, 0xff, 0xff]) }]),
    ],
    [
      'a local name differing from the central one',
      () => {
        const zip = rawZip([skillMdEntry]);
        zip[30] = 'X'.charCodeAt(0);
        return zip;
      },
    ],
  ])('refuses %s with 400 zip_corrupt', async (_case, build) => {
    expect(await refusal(() => readSkillZip(build()))).toMatchObject({ code: 'zip_corrupt', param: 'file' });
  });

  it('refuses ZIP64 and multi-part archives', async () => {
    const zip = rawZip([skillMdEntry]);
    zip.set([0xff, 0xff, 0xff, 0xff], zip.length - 6);
    expect(await refusal(() => readSkillZip(zip))).toMatchObject({ code: 'zip_unsupported' });
    const parts = rawZip([skillMdEntry]);
    parts[parts.length - 18] = 1; // this disk's number
    expect(await refusal(() => readSkillZip(parts))).toMatchObject({ code: 'zip_unsupported' });
  });
});
