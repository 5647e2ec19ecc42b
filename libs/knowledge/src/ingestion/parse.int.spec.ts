// The worker-thread path of parseDocument, as production runs it: the compiled module in dist/ (built by `pretest`;
// run `npm run build` first when calling jest directly), whose `parse-worker.js` sits beside it. From the
// TypeScript sources there is no compiled worker, so these cases cannot run against them (see parse.ts).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as ParseModule from './parse.js';
import { parseInThisThread } from './parse-core.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import type { DocumentKind } from './sniff.js';

const COMPILED = new URL('../../../../dist/libs/knowledge/src/ingestion/parse.js', import.meta.url);

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

let compiled: typeof ParseModule;

beforeAll(async () => {
  if (!existsSync(fileURLToPath(COMPILED)))
    throw new Error(
      `${fileURLToPath(COMPILED)} is missing: run \`npm run build\` (npm test does it in pretest)`,
    );
  compiled = (await import(COMPILED.href)) as typeof ParseModule;
});

/** The failure of a parse, timed. The compiled module has its own IngestionError class, so it is matched by name. */
const failure = async (name: string, kind: DocumentKind, limits: Partial<ParseLimits> = {}) => {
  const started = performance.now();
  const error: unknown = await compiled.parseDocument(fixture(name), kind, limits).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  const elapsedMs = performance.now() - started;
  expect(error).toMatchObject({ name: 'IngestionError' });
  const { reason, message } = error as { reason: string; message: string };
  return { reason, message, elapsedMs };
};

describe('parseDocument in a worker thread (compiled)', () => {
  it('runs parses in a worker thread', () => {
    expect(compiled.PARSES_IN_WORKER).toBe(true);
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
    const { reason, message, elapsedMs } = await failure('bomb.docx', 'docx', { timeoutMs: 250 });
    expect({ reason, message }).toEqual({ reason: 'timeout', message: 'parsing took longer than 250 ms' });
    expect(elapsedMs).toBeLessThan(2_000);
  });

  it('stops a zip bomb when it needs more heap than allowed', async () => {
    const { reason, message } = await failure('bomb.docx', 'docx', { maxHeapMb: 32, maxChars: 1e9 });
    expect({ reason, message }).toEqual({
      reason: 'too_large',
      message: 'parsing needed more than 32 MiB of memory',
    });
  });

  it('stops a zip bomb at the character limit with the default limits', async () => {
    expect(await failure('bomb.docx', 'docx')).toMatchObject({
      reason: 'too_large',
      message: 'the extracted text exceeds 5000000 characters',
    });
  });

  it('carries failures from inside the worker across with their reason', async () => {
    expect(await failure('corrupt.pdf', 'pdf')).toMatchObject({ reason: 'parse_failed' });
    expect(await failure('sample.pdf', 'pdf', { maxPdfPages: 1 })).toMatchObject({ reason: 'too_large' });
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
