// Parsing a document of a sniffed kind into text and blocks, within limits. Each parse runs in a worker thread (kept
// warm in a small pool): pdf.js, mammoth's XML parser and the others are CPU-bound and cannot be interrupted, so a hostile file
// (a zip bomb, a pathological PDF) is stopped by terminating its worker when the time limit passes, and by the
// worker's heap cap when it needs too much memory. The caller only ever sees a ParsedDocument or an IngestionError.
//
// The worker is the compiled `parse-worker.js` beside this module (dist/ in production). When this module runs
// from its TypeScript source (under ts-jest) there is no such file, and the parse runs in the calling thread
// with the same limits, except that the time limit is only noticed (when the parse yields, or when it ends), not
// enforced, and there is no heap cap.
// The specs of the worker path therefore run against dist/ (built by `pretest`), see parse.int.spec.ts.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { IngestionError, isIngestionFailureReason } from './ingestion-error.js';
// The parsers themselves (marked, parse5, csv-parse, pdf.js, mammoth) load in the worker threads, never here.
import type { ParseReply, ParseRequest } from './parse-core.js';
import { checkSize, DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import type { ParsedDocument } from './parsed-document.js';
import type { DocumentKind } from './sniff.js';

const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

/** True when parses run in a worker thread (compiled code); false when running from TypeScript sources. */
export const PARSES_IN_WORKER = existsSync(fileURLToPath(WORKER_URL));

const timedOut = (limits: ParseLimits): IngestionError =>
  new IngestionError('timeout', `parsing took longer than ${limits.timeoutMs} ms`);

/**
 * Parser threads kept warm between parses: starting a thread and loading the parsers in it (pdf.js, mammoth, …)
 * cost more than most parses. A thread that timed out, ran out of memory or crashed is never reused; at most
 * POOL_SIZE threads wait idle (unreferenced, so they never hold the process open). A request with a heap cap other
 * than the pool's gets a thread of its own.
 */
const POOL_SIZE = 2;
const idle: Worker[] = [];

const startWorker = (maxHeapMb: number, workerData: unknown, transferList: ArrayBuffer[] = []): Worker =>
  new Worker(WORKER_URL, { workerData, transferList, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });

const replyToDocument = (reply: ParseReply): ParsedDocument => {
  if (reply.ok) return reply.document;
  throw new IngestionError(
    isIngestionFailureReason(reply.reason) ? reply.reason : 'parse_failed',
    reply.message,
  );
};

const parseInWorker = (request: ParseRequest): Promise<ParsedDocument> =>
  new Promise((resolve, reject) => {
    const { limits } = request;
    // A compact copy, moved rather than cloned: cloning a view clones its whole backing buffer (a Buffer slice of a
    // large request body would drag all of it along).
    const bytes = new Uint8Array(request.bytes);
    const pooled = limits.maxHeapMb === DEFAULT_PARSE_LIMITS.maxHeapMb;
    const worker = pooled
      ? (idle.pop() ?? startWorker(limits.maxHeapMb, { pooled: true }))
      : startWorker(limits.maxHeapMb, { ...request, bytes }, [bytes.buffer]);
    worker.ref();
    let settled = false;
    const settle = (outcome: () => void, reusable: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (reusable && pooled && idle.length < POOL_SIZE) {
        worker.unref();
        idle.push(worker);
      } else void worker.terminate();
      outcome();
    };
    const onMessage = (reply: ParseReply) =>
      settle(() => {
        try {
          resolve(replyToDocument(reply));
        } catch (error) {
          reject(error);
        }
      }, true);
    const onError = (error: Error & { code?: string }) =>
      settle(
        () =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? new IngestionError('too_large', `parsing needed more than ${limits.maxHeapMb} MiB of memory`)
              : new IngestionError('parse_failed', `the parser crashed: ${error.message}`),
          ),
        false,
      );
    const onExit = (code: number) =>
      settle(
        () =>
          reject(
            new IngestionError('parse_failed', `the parser stopped without an answer (exit code ${code})`),
          ),
        false,
      );
    const timer = setTimeout(() => settle(() => reject(timedOut(limits)), false), limits.timeoutMs);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    if (pooled) worker.postMessage({ ...request, bytes }, [bytes.buffer]);
  });

/** Without a worker: the deadline can fire only when the parse yields, so the elapsed time is checked at the end too. */
const parseWithDeadline = async (request: ParseRequest): Promise<ParsedDocument> => {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(request.limits)), request.limits.timeoutMs);
  });
  try {
    const { parseInThisThread } = await import('./parse-core.js');
    const document = await Promise.race([
      parseInThisThread(request.bytes, request.kind, request.limits),
      deadline,
    ]);
    if (performance.now() - started > request.limits.timeoutMs) throw timedOut(request.limits);
    return document;
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The text and blocks of `bytes`, a document of `kind` (from `sniffType`). Limits not given take their defaults.
 * Rejects with an IngestionError only: `too_large`, `parse_failed`, `timeout` or `empty`.
 */
export const parseDocument = async (
  bytes: Uint8Array,
  kind: DocumentKind,
  limits: Partial<ParseLimits> = {},
): Promise<ParsedDocument> => {
  const given = Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
  const request: ParseRequest = { bytes, kind, limits: { ...DEFAULT_PARSE_LIMITS, ...given } };
  checkSize(bytes, request.limits);
  return PARSES_IN_WORKER ? parseInWorker(request) : parseWithDeadline(request);
};
