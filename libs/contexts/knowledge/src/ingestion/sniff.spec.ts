import { readFileSync } from 'node:fs';
import { contentHash } from './content-hash.js';
import { MIME_TYPES, sniffType, type DocumentKind } from './sniff.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** Deterministic noise (xorshift32), so a failure can be reproduced. */
const noise = (length: number, seed: number): Buffer => {
  const bytes = Buffer.alloc(length);
  let state = seed;
  for (let index = 0; index < length; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  return bytes;
};

const kindOf = async (bytes: Buffer | string, fileName?: string): Promise<DocumentKind | undefined> =>
  (await sniffType(typeof bytes === 'string' ? Buffer.from(bytes) : bytes, fileName))?.kind;

describe('sniffType', () => {
  it.each<[string, DocumentKind]>([
    ['sample.pdf', 'pdf'],
    ['sample.docx', 'docx'],
    ['sample.html', 'html'],
    ['sample.md', 'markdown'],
    ['sample.csv', 'csv'],
    ['sample.json', 'json'],
    ['sample.txt', 'text'],
  ])('%s is %s, whatever the file is called', async (name, kind) => {
    const sniffed = await sniffType(fixture(name), 'upload.bin');
    expect(sniffed).toEqual({ kind, mimeType: MIME_TYPES[kind] });
  });

  it('never takes the name for the content: a .pdf or .docx of text is text', async () => {
    expect(await kindOf('Quarterly figures follow.\n', 'report.pdf')).toBe('text');
    expect(await kindOf('Quarterly figures follow.\n', 'report.docx')).toBe('text');
    expect(await kindOf(fixture('sample.txt'), 'report.pdf')).toBe('text');
  });

  it('finds a PDF by its signature whatever the name, also behind a little binary junk', async () => {
    expect(await kindOf(fixture('sample.pdf'), 'notes.txt')).toBe('pdf');
    expect(await kindOf(Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x01]), fixture('sample.pdf')]))).toBe(
      'pdf',
    );
  });

  it('does not take text that mentions %PDF- for a PDF', async () => {
    expect(await kindOf('A PDF file starts with %PDF-1.7 and ends with %%EOF.\n')).toBe('text');
  });

  it('reads UTF-16 with its byte-order mark, and legacy Windows-1252 text', async () => {
    const utf16le = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('# Café menu\n\n- soup\n- bread\n', 'utf16le'),
    ]);
    expect(await kindOf(utf16le, 'menu.md')).toBe('markdown');
    const utf16be = Buffer.from(utf16le.subarray(2)).swap16();
    expect(await kindOf(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be]))).toBe('markdown');
    expect(await kindOf(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x0a]), 'latin1.txt')).toBe('text'); // "café €"
  });

  it('returns null for random bytes, binary formats it does not read, and UTF-8 that is not text', async () => {
    expect(await sniffType(noise(4096, 7))).toBeNull();
    expect(await sniffType(noise(64, 99), 'notes.txt')).toBeNull();
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    expect(await sniffType(png, 'image.md')).toBeNull();
    expect(await sniffType(Buffer.from('text\u0000with NULs\u0000', 'utf8'))).toBeNull();
  });

  it('returns null for a zip that is not a Word document; a truncated Word document is still one (parsing fails it)', async () => {
    const zip = Buffer.from('504b0506000000000000000000000000000000000000', 'hex'); // an empty zip
    expect(await sniffType(zip, 'archive.docx')).toBeNull();
    expect(await kindOf(fixture('corrupt.docx'))).toBe('docx');
  });

  it('does not let a two-byte binary signature claim ordinary text', async () => {
    expect(await kindOf('BM 2024 annual report\n\nThe year in review.\n')).toBe('text');
    expect(await kindOf('MZ-7 service manual\n')).toBe('text');
  });

  it('reads JSON only when the whole document parses to an object or array', async () => {
    expect(await kindOf('[1, 2, 3]')).toBe('json');
    expect(await kindOf('{"a": 1')).toBe('text');
    expect(await kindOf('42')).toBe('text');
  });

  it('recognises HTML by its doctype, its root, or structural markup, but not Markdown with a little inline HTML', async () => {
    expect(await kindOf('<?xml version="1.0"?>\n<!DOCTYPE html><html><body><p>x</p></body></html>')).toBe(
      'html',
    );
    expect(await kindOf('<!-- saved page -->\n<html><p>Hello</p></html>')).toBe('html');
    expect(await kindOf('<div class="note"><p>A fragment</p></div>')).toBe('html');
    expect(await kindOf('# Title\n\nSome text with <b>bold</b> HTML.\n\n- a list\n')).toBe('markdown');
  });

  it('tells Markdown from plain text by its syntax, and lets the name break a tie only', async () => {
    expect(await kindOf('Intro\n=====\n\nSee [the docs](https://example.com).\n')).toBe('markdown');
    expect(await kindOf('## Heading\n\nText.\n', 'notes.txt')).toBe('markdown');
    // One weak sign (a list) is a tie: the name decides.
    const list = 'Shopping\n\n- milk\n- bread\n';
    expect(await kindOf(list)).toBe('text');
    expect(await kindOf(list, 'shopping.md')).toBe('markdown');
    expect(await kindOf(list, 'shopping.txt')).toBe('text');
    expect(await kindOf('Just a sentence.', 'README.markdown')).toBe('markdown');
  });

  it('takes a consistent table of three or more records for CSV, and a shorter one only with a .csv name', async () => {
    expect(await kindOf('id;name\n1;Ada\n2;Grace\n')).toBe('csv');
    expect(await kindOf('id\tname\n1\tAda\n2\tGrace\n')).toBe('csv');
    expect(await kindOf('Hello, world\nGoodbye, moon\n')).toBe('text');
    expect(await kindOf('Hello, world\nGoodbye, moon\n', 'pairs.csv')).toBe('csv');
    expect(await kindOf('a,b\n1,2,3\n4\n', 'ragged.csv')).toBe('text');
  });

  it('takes an empty file for text, so that parsing can fail it as empty rather than unsupported', async () => {
    expect(await kindOf(Buffer.alloc(0))).toBe('text');
  });

  it('reads pathological text (runs of brackets, emphasis, rules, pipes) as text, whole', async () => {
    // What they cost (linear, about plain text's) is measured by `npm run bench` (bench/sniff-linearity.ts), not here:
    // a timing in a test is the machine's load.
    const pathological = [
      '['.repeat(60_000),
      `${'['.repeat(59_998)}]]`,
      '[a]('.repeat(15_000),
      '**'.repeat(30_000),
      `${'a '.repeat(10_000)}\n`.repeat(3),
      `Title\n${'='.repeat(60_000)}x`,
      `|${' '.repeat(60_000)}`,
    ];
    for (const text of pathological) expect(['text', 'markdown']).toContain(await kindOf(text));
  });

  it('still reads JSON with whitespace after it, and a link whose address has parentheses', async () => {
    expect(await kindOf('[1, 2, 3]\n\n')).toBe('json');
    expect(await kindOf('{"a": [1]}  \r\n')).toBe('json');
    expect(await kindOf('[[[[[[')).toBe('text');
    expect(
      await kindOf('See [Etna](https://en.wikipedia.org/wiki/Etna_(volcano)) and [Vesuvius](v.md).\n'),
    ).toBe('markdown');
  });
});

describe('contentHash', () => {
  it('is the sha256 of the bytes, prefixed as the blob store spells it', () => {
    expect(contentHash(Buffer.from('abc'))).toBe(
      'sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(contentHash(fixture('sample.pdf'))).toMatch(/^sha256-[0-9a-f]{64}$/);
  });
});
