// The child-process path of parseDocument and prepareDocument, as production runs it: the compiled module in dist/
// (built by `pretest`; run `npm run build` first when calling jest directly), whose `parse-child.js` sits beside it.
// From the TypeScript sources there is no compiled child, so these cases cannot run against them (see parse.ts).
import { deflateSync } from 'node:zlib';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as ParseModule from './parse.js';
import { parseInThisThread } from './parse-core.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import type { DocumentKind } from './sniff.js';

const COMPILED = new URL(
  '../../../../../dist/libs/contexts/knowledge/src/ingestion/parse.js',
  import.meta.url,
);

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

let compiled: typeof ParseModule;

beforeAll(async () => {
  if (!existsSync(fileURLToPath(COMPILED)))
    throw new Error(
      `${fileURLToPath(COMPILED)} is missing: run \`npm run build\` (npm test does it in pretest)`,
    );
  compiled = (await import(COMPILED.href)) as typeof ParseModule;
});

/** The processes this one started (the parse children). */
const childPids = (): number[] => {
  try {
    return readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

/** One page whose FlateDecode content stream inflates to `inflated` bytes. */
const flateBombPdf = (inflated: number): Buffer => {
  const stream = deflateSync(Buffer.alloc(inflated, 0x20), { level: 9 });
  const head = `%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >> endobj
4 0 obj << /Length ${stream.length} /Filter /FlateDecode >>
stream
`;
  const tail = '\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';
  return Buffer.concat([Buffer.from(head), stream, Buffer.from(tail)]);
};

/** The failure of a parse. The compiled module has its own IngestionError class, so it is matched by name. */
const failure = async (name: string, kind: DocumentKind, limits: Partial<ParseLimits> = {}) => {
  const error: unknown = await compiled.parseDocument(fixture(name), kind, limits).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toMatchObject({ name: 'IngestionError' });
  const { reason, message } = error as { reason: string; message: string };
  return { reason, message };
};

describe('parseDocument in a child process (compiled)', () => {
  it('runs parses in child processes', () => {
    expect(compiled.PARSES_IN_CHILD_PROCESS).toBe(true);
  });

  it.each<[string, DocumentKind]>([
    ['sample.pdf', 'pdf'],
    ['sample.docx', 'docx'],
    ['sample.md', 'markdown'],
    ['sample.csv', 'csv'],
  ])('returns the same document for %s as a parse in this thread', async (name, kind) => {
    const inWorker = await compiled.parseDocument(fixture(name), kind);
    expect(inWorker).toEqual(await parseInThisThread(fixture(name), kind, DEFAULT_PARSE_LIMITS));
  });

  it('stops a zip bomb when the time limit passes', async () => {
    // The reason shows the wall-time limit ended it (not the memory cap, not the bomb's end): no machine-speed bound.
    // Neither the text nor the memory limit can come first (the whole bomb parses in ≈1.4 s here, its text 83 MB): with
    // the defaults, a test process kept off the CPU past the ≈1 s the bomb takes to reach 5,000,000 characters saw
    // `too_large`.
    const { reason, message } = await failure('bomb.docx', 'docx', {
      timeoutMs: 250,
      maxChars: 1e9,
      maxMemoryMb: 4096,
    });
    expect({ reason, message }).toEqual({ reason: 'timeout', message: 'parsing took longer than 250 ms' });
  });

  it('stops a zip bomb when its process needs more memory than allowed', async () => {
    const { reason } = await failure('bomb.docx', 'docx', { maxMemoryMb: 160, maxChars: 1e9 });
    expect(reason).toBe('too_large');
  });

  it('stops a PDF whose content stream inflates past the memory limit (outside the JS heap)', async () => {
    const error: unknown = await compiled
      .parseDocument(flateBombPdf(512 * 1024 * 1024), 'pdf', { maxMemoryMb: 256 })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toMatchObject({ name: 'IngestionError', reason: 'too_large' });
  });

  it('prepares a stored document (type, text, chunks) in the child', async () => {
    const prepared = await compiled.prepareDocument(fixture('sample.md'), 'guide.md');
    expect(prepared.mimeType).toBe('text/markdown');
    expect(prepared.chunks.length).toBeGreaterThan(0);
    expect(prepared.text).toContain('Install');
    const failed: unknown = await compiled.prepareDocument(Buffer.from([0, 1, 2, 3, 0xff]), 'blob.bin').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(failed).toMatchObject({ name: 'IngestionError', reason: 'unsupported_type' });
  });

  it('prepares 2,000,000 characters without whitespace', async () => {
    const prepared = await compiled.prepareDocument(Buffer.alloc(2_000_000, 'x'), 'xs.txt');
    expect(prepared.text.length).toBe(2_000_000);
    expect(prepared.chunks.length).toBeGreaterThan(100);
  });

  it('stops a zip bomb at the character limit with the default limits', async () => {
    expect(await failure('bomb.docx', 'docx')).toMatchObject({
      reason: 'too_large',
      message: 'the extracted text exceeds 5000000 characters',
    });
  });

  it('leaves a child that parsed a PDF its whole memory budget: the bomb parsed next in it stops at the character limit', async () => {
    // Both in one warm child (the only one with this budget). pdf.js's canvas package, once loaded, held a 1 GiB arena
    // against the child's kernel limit, and the bomb failed on memory it never used (its parse peaks near 320 MiB).
    const limits = { maxMemoryMb: 700 };
    expect(
      (await compiled.parseDocument(fixture('sample.pdf'), 'pdf', limits)).blocks.length,
    ).toBeGreaterThan(0);
    expect(await failure('bomb.docx', 'docx', limits)).toEqual({
      reason: 'too_large',
      message: 'the extracted text exceeds 5000000 characters',
    });
  });

  it('carries failures from inside the worker across with their reason', async () => {
    expect(await failure('corrupt.pdf', 'pdf')).toMatchObject({ reason: 'parse_failed' });
    expect(await failure('sample.pdf', 'pdf', { maxPdfPages: 1 })).toMatchObject({ reason: 'too_large' });
  });

  it('reports a parser process that died as parser_crashed, and starts a fresh one for the next parse', async () => {
    // The child is killed from outside while it parses (as the kernel's OOM killer would).
    const parsing = compiled.parseDocument(fixture('bomb.docx'), 'docx', {
      maxChars: 1e9,
      maxMemoryMb: 4096,
    });
    const killer = setInterval(() => {
      for (const pid of childPids()) process.kill(pid, 'SIGKILL');
    }, 50);
    const error: unknown = await parsing.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    clearInterval(killer);
    expect(error).toMatchObject({ name: 'IngestionError', reason: 'parser_crashed' });
    expect((await compiled.parseDocument(fixture('sample.md'), 'markdown')).blocks[0]?.text).toBe('Install');
  });

  it('keeps serving after a stopped parse, and runs parses side by side', async () => {
    await failure('bomb.docx', 'docx', { timeoutMs: 100 });
    const documents = await Promise.all(
      (['sample.pdf', 'sample.docx', 'sample.md', 'sample.html'] as const).map((name, index) =>
        compiled.parseDocument(fixture(name), (['pdf', 'docx', 'markdown', 'html'] as const)[index]!),
      ),
    );
    expect(documents.map((document) => document.blocks[0]?.text)).toEqual([
      'Quarterly report',
      'Install',
      'Install',
      'Handbook',
    ]);
  });
});
