// Benchmark 6: Agent conversations (POST /api/v1/core/llm/{agentId}/conversation) against the same model call through
// the compatible gateway alone, and listing a long conversation's messages. Three processes, as in the gateway bench:
// the fake OpenAI-compatible upstream (answering after `upstreamLatencyMs`, plus a second one that answers at once),
// the built api routing chat model `fake-chat` (and `fake-chat-instant`) to them, and this process as the client.
//
// The Knowledge: `documents` tiny text documents are added through the api (so the documents read model holds them,
// Ready, with a version and content hash, as the knowledge provider needs), then the api is stopped and each of those
// documents' chunks is replaced, in the live index of the api's search.db, by `chunksPerDocument` generated chunks
// (the knowledge bench's corpus generator, offlineEmbed vectors of 384 dimensions, owner the bench Agent) through the
// SearchIndex port's upsertDocument (same version: it replaces the tiny document's chunk), and the api is started
// again on the same DATA_DIR. Every chunk is the bench Agent's own: a turn's retrieval ranks all of them.
// Part (1) runs first at each of `smallerChunkCounts` (the same documents with fewer generated chunks each, the api
// restarted after each fill), then at the full size before (2) and (3): how a turn's added latency grows with the
// Knowledge. From the default ANN threshold on (off today: DEFAULT_ANN_MIN_CHUNKS), the fill also builds the Agent's HNSW graph (as the api would on its first
// search) and saves it beside search.db, so the api started next loads it.
//
// (1) Turn vs gateway: sequential, a new conversation per turn (no history), each a different query of the corpus
//     vocabulary; the gateway call sends the same model the same prompt the turn builds (system prompt, the sources
//     block of the 8 passages the search of that query returns, the query), so prompt sizes match; the Knowledge
//     search endpoint (POST /knowledge/{agentId}/search, same query) runs beside them to show retrieval's share.
//     Blocks alternate (order rotating) after a warm-up of each. Added latency = turn p50 − gateway p50.
// (2) Streaming: stream: true, time to the first `delta` event of a turn vs the first content chunk of the gateway's
//     streamed completion (upstream: 20 chunks 2 ms apart), alternating blocks; ratio of p50s.
// (3) Listing: one conversation grown to `listingMessages` messages by sequential turns through the api against the
//     instant upstream (model fake-chat-instant, same Agent and Knowledge, so answers carry citations and
//     provenance), then GET …/messages?limit=200 followed through every page, repeated; p50 of the first page and of
//     the whole listing.
// (4) A turn in that conversation against a turn in a 10-message one (bench/long-conversation.ts, also runnable alone).
// (5) At 10k chunks, 200 streamed turns in flight together against a paced upstream (bench/concurrent-turns.ts).
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIVE_INDEX_ALIAS } from '#knowledge/pipeline/index-aliases';
import { formatSourcesBlock } from '#conversations';
import { EMBEDDING_DIMENSIONS } from '#model-providers/offline/offline-embed';
import type { IndexedChunk } from '#search';
import {
  DEFAULT_ANN_MIN_CHUNKS,
  DEFAULT_BM25_MEMORY_MIN_CHUNKS,
  SqliteSearchIndex,
} from '#search/sqlite/sqlite-search-index';
import { BENCH_ADMIN_API_KEY, memoryOf, spawnApi, stop } from './api-startup.js';
import { startUpstream } from './gateway.js';
import { seededRandom } from '#kernel';
import { embedAll, Prose } from './knowledge.js';
import { cpuSeconds, durableCommitP50, log, makeTempDir, median, text, type MetricRow } from './util.js';
import { measureLongConversation, type LongConversationDetails } from './long-conversation.js';
import { measureConcurrentTurns, PACED_UPSTREAM, type ConcurrentTurnsDetails } from './concurrent-turns.js';

export interface ConversationsBenchOptions {
  /** dist/apps/api/src/main.js */
  readonly mainPath: string;
  /** dist/bench/fake-upstream-server.js */
  readonly upstreamPath: string;
  readonly readyTimeoutMs: number;
  /** Documents added through the api, and the generated chunks each gets in the index. */
  readonly documents: number;
  readonly chunksPerDocument: number;
  /** Smaller Knowledge sizes (chunks) at which the turn vs gateway part alone runs first, with `smallerTurns`. */
  readonly smallerChunkCounts: readonly number[];
  readonly smallerTurns: number;
  /**
   * Larger Knowledge sizes (chunks), measured last (turn vs gateway alone, `smallerTurns` turns), with the api's search
   * memory raised to hold them (SEARCH_VECTOR_CACHE_MB, SEARCH_BM25_MEMORY_MB): BENCH_CONVERSATIONS_LARGER=1000000.
   */
  readonly largerChunkCounts?: readonly number[];
  /** Sequential turns (and gateway calls, and searches) measured, in alternating blocks of `block`. */
  readonly turns: number;
  readonly block: number;
  readonly warmupTurns: number;
  /** Streamed turns and gateway streams measured per path, alternating blocks of `streamBlock`. */
  readonly streams: number;
  readonly streamBlock: number;
  readonly warmupStreams: number;
  readonly streamChunks: number;
  readonly chunkDelayMs: number;
  readonly upstreamLatencyMs: number;
  /** Messages of the listed conversation (two per turn), and how many full listings are timed. */
  readonly listingMessages: number;
  readonly listings: number;
  readonly pageSize: number;
  /** Turns timed in the listed conversation and in 10-message ones (section 4 of long-conversation.ts); 60 unset. */
  readonly longConversationTurns?: number;
  /** Streamed turns in flight together at CONCURRENT_AT chunks (concurrent-turns.ts); 200 unset, 0 skips them. */
  readonly concurrentTurns?: number;
}

/** The Knowledge size at which the concurrent turns run (on the api measured at that size). */
const CONCURRENT_AT = 10_000;

export interface Latencies {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly mean: number;
  readonly n: number;
}

/** The in-memory BM25 postings the fill builds and saves beside search.db, as the api's BM25 thread would. */
interface Bm25Build {
  readonly buildSeconds: number;
  readonly buildSecondsPer100k: number;
  readonly megabytes: number;
  readonly megabytesPer100k: number;
}

interface AnnBuild {
  readonly buildSeconds: number;
  readonly buildSecondsPer100k: number;
  readonly memoryMegabytes: number;
  readonly memoryMegabytesPer100k: number;
}

export interface ConversationsDetails {
  readonly knowledge: {
    readonly documents: number;
    readonly chunks: number;
    readonly addSeconds: number;
    readonly fillSeconds: number;
    readonly index: string;
    /** The Agent's HNSW graph at the full size (null below the threshold). */
    readonly ann: AnnBuild | null;
    /** The BM25 postings at the full size (null below DEFAULT_BM25_MEMORY_MIN_CHUNKS). */
    readonly bm25: Bm25Build | null;
    /** The turn's added p50 and the search's p50 at each size, smallest first. */
    readonly growth: readonly {
      chunks: number;
      addedMs: number;
      searchMs: number;
      annBuildSeconds: number | null;
      /** Recall@10 of the vector leg the api runs against the plain exact scan. */
      recall: number;
    }[];
  };
  readonly turn: Latencies;
  readonly gateway: Latencies;
  readonly search: Latencies;
  readonly addedLatencyP50Ms: number;
  /** The api's CPU (every thread) per turn, per gateway call and per search, ms. */
  readonly apiCpuMs: { turn: number; gateway: number; search: number };
  /** One durable commit's p50 in ms on this machine: 5 ms after the last, and back to back. */
  readonly durableCommitMs: { afterPause: number; backToBack: number };
  /** Prompt size as the fake upstream counts it (words in the messages), medians. */
  readonly promptWords: { turn: number; gateway: number };
  readonly citationsPerAnswer: number;
  readonly streaming: { turnFirstDelta: Latencies; gatewayFirstChunk: Latencies; ratio: number };
  readonly listing: {
    readonly messages: number;
    readonly createSeconds: number;
    readonly turnMsAtEnd: number;
    readonly firstPage: Latencies;
    readonly everyPage: Latencies;
    readonly fullListing: Latencies;
    readonly pages: number;
  };
  /** A turn in the listed (1,000-message) conversation against one in a 10-message conversation. */
  readonly longConversation: LongConversationDetails;
  /** The concurrent streamed turns at CONCURRENT_AT chunks (null: not run). */
  readonly concurrent: ConcurrentTurnsDetails | null;
  readonly upstream: { latencyMs: number; streamChunks: number; chunkDelayMs: number; reply: string };
}

/** Cites two sources, so a turn's answer keeps [1] and [2] as citations (the turn drops unknown markers). */
export const REPLY =
  'The documents cover this in two places [1]. The second source adds the details that matter here [2].';
export const CORE = '/api/v1/core';
/** The core API reads x-api-key, the compatible API the bearer token: every request carries both, the same key. */
const AUTH = { authorization: `Bearer ${BENCH_ADMIN_API_KEY}`, 'x-api-key': BENCH_ADMIN_API_KEY };
export const COMPAT_CHAT = '/api/compat/v1/chat/completions';

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function latencies(values: readonly number[]): Latencies {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (value: number) => Number(value.toFixed(4));
  return {
    p50: round(median(sorted)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
    n: sorted.length,
  };
}

export interface Answer<T = unknown> {
  readonly status: number;
  readonly ms: number;
  readonly body: T;
  readonly raw: string;
}

export interface Hit {
  readonly documentId: string;
  readonly documentName: string;
  readonly sectionPath: string[];
  readonly text: string;
}

export interface TurnResult {
  readonly conversationId: string;
  readonly message: { readonly content: string; readonly citations: readonly unknown[] };
}

export class Client {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 16, scheduling: 'lifo' });
  constructor(public port: number) {}

  json<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method,
          agent: this.agent,
          headers: {
            ...AUTH,
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const ms = performance.now() - started;
            const raw = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = raw.length > 0 ? JSON.parse(raw) : null;
            } catch {
              parsed = null;
            }
            resolve({ status: res.statusCode ?? 0, ms, body: parsed as T, raw });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload ?? undefined);
    });
  }

  /**
   * POSTs a streamed request and reads its SSE frames; `first` picks the frame that counts as the first token
   * (event name and data payload). Resolves with the time to that frame and every frame's event name.
   */
  stream(
    path: string,
    body: unknown,
    first: (event: string, data: string) => boolean,
  ): Promise<{ status: number; firstMs: number | null; events: string[]; frames: [string, string][] }> {
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method: 'POST',
          agent: this.agent,
          headers: {
            ...AUTH,
            'content-type': 'application/json',
            'content-length': payload.length,
          },
        },
        (res) => {
          let firstMs: number | null = null;
          let pending = '';
          const events: string[] = [];
          const frames: [string, string][] = [];
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const now = performance.now();
            pending += chunk;
            let end: number;
            while ((end = pending.indexOf('\n\n')) >= 0) {
              const frame = pending.slice(0, end);
              pending = pending.slice(end + 2);
              let event = 'message';
              let data = '';
              for (const line of frame.split('\n')) {
                if (line.startsWith('event:')) event = line.slice(6).trim();
                else if (line.startsWith('data:')) data += line.slice(5).trim();
              }
              events.push(event);
              frames.push([event, data]);
              if (firstMs === null && res.statusCode === 200 && first(event, data)) firstMs = now - started;
            }
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              firstMs,
              events,
              frames: res.statusCode === 200 ? frames : [['body', pending]],
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}

export const expectStatus = (what: string, answer: Answer, ...statuses: number[]): void => {
  if (!statuses.includes(answer.status))
    throw new Error(`${what} answered ${answer.status}: ${answer.raw.slice(0, 500)}`);
};

/** Adds the tiny documents through the api, a few at a time, and waits until every one is Ready. */
export async function addDocuments(client: Client, agentId: string, count: number): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < count) {
        const i = next++;
        const added = await client.json<{ id: string }>('POST', `${CORE}/knowledge/${agentId}/documents`, {
          name: `bench-${String(i).padStart(4, '0')}.txt`,
          text: `Bench document ${i}. Its chunks are written to the search index by the benchmark.`,
        });
        expectStatus('adding a document', added, 201);
        ids[i] = added.body.id;
      }
    }),
  );
  const deadline = performance.now() + 600_000;
  for (;;) {
    let ready = 0;
    let cursor: string | null = null;
    do {
      const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: Answer<{ data: { status: string; id: string }[]; nextCursor: string | null }> =
        await client.json('GET', `${CORE}/knowledge/${agentId}/documents?${query}`);
      expectStatus('listing documents', page, 200);
      for (const document of page.body.data) {
        if (document.status === 'Failed') throw new Error(`document ${document.id} failed ingestion`);
        if (document.status === 'Ready') ready++;
      }
      cursor = page.body.nextCursor;
    } while (cursor);
    if (ready === count) return ids;
    if (performance.now() > deadline) throw new Error(`only ${ready}/${count} documents Ready after 10 min`);
    await sleep(250);
  }
}

/** The embedded index's memory for `chunks` chunks of the bench (and the api's settings for it), with room to spare. */
export function searchMemoryFor(chunks: number): { vectorCacheMb: number; bm25Mb: number } {
  return {
    // 1,536 bytes of floats, 384 of int8 codes and 12 of scale per chunk of 384 dimensions.
    vectorCacheMb: Math.max(256, Math.ceil((chunks * 1_932 * 1.1) / 1024 / 1024)),
    // The postings of the bench's text: ≈ 0.22 KB per chunk (21 MB per 100,000, 213 MB at a million).
    bm25Mb: Math.max(256, Math.ceil((chunks * 240 * 1.2) / 1024 / 1024)),
  };
}

/**
 * Replaces each document's chunks in the live index of the api's search.db (api stopped) with generated ones, owned
 * by the Agent, version 1 (the version ingestion indexed: the same version replaces, an older one would not).
 */
export async function fillIndex(
  dataDir: string,
  agentId: string,
  documentIds: readonly string[],
  chunksPerDocument: number,
): Promise<{ index: string; chunks: number; ann: AnnBuild | null; bm25: Bm25Build | null; recall: number }> {
  const memory = searchMemoryFor(documentIds.length * chunksPerDocument);
  const searchIndex = new SqliteSearchIndex({
    path: join(dataDir, 'search.db'),
    vectorCacheBytes: memory.vectorCacheMb * 1024 * 1024,
  });
  try {
    const index = await searchIndex.liveIndex(LIVE_INDEX_ALIAS);
    if (!index) throw new Error('the api made no live search index');
    await searchIndex.ensureIndex(index, { dimensions: EMBEDDING_DIMENSIONS });
    const prose = new Prose(seededRandom(4242));
    let nextLog = 0.1;
    for (const [n, documentId] of documentIds.entries()) {
      const topic = prose.topic();
      const title = prose.title(topic);
      const sections = Array.from({ length: Math.ceil(chunksPerDocument / 3) }, () => prose.title(topic));
      const texts = Array.from({ length: chunksPerDocument }, () => prose.passage(topic, prose.int(40, 200)));
      const vectors = embedAll(texts);
      let offset = 0;
      await searchIndex.upsertDocument(
        index,
        documentId,
        1,
        texts.map((chunkText, i): IndexedChunk => {
          const start = offset;
          offset += chunkText.length + 2;
          return {
            chunkId: `${documentId}:1:${i}`,
            documentId,
            version: 1,
            ownerId: agentId,
            tagIds: [],
            sectionPath: [title, sections[Math.floor(i / 3)]!],
            start,
            end: start + chunkText.length,
            text: chunkText,
            embedding: vectors[i]!,
            documentName: `bench-${String(n).padStart(4, '0')}.txt`,
          };
        }),
      );
      if ((n + 1) / documentIds.length >= nextLog) {
        log(`conversations: ${((n + 1) * chunksPerDocument).toLocaleString('en-US')} chunks written`);
        nextLog += 0.1;
      }
    }
    const stats = await searchIndex.stats(index);
    const expected = documentIds.length * chunksPerDocument;
    if (stats.chunks !== expected || stats.documents !== documentIds.length)
      throw new Error(
        `the index holds ${stats.chunks} chunks of ${stats.documents} documents, not ${expected} of ` +
          `${documentIds.length}: did ingestion index another version than 1?`,
      );
    // The Agent's HNSW graph (an owner over the threshold), built here as the api would on its first search and
    // saved beside search.db: the api started next loads it instead of building it.
    let ann: AnnBuild | null = null;
    if (stats.chunks >= DEFAULT_ANN_MIN_CHUNKS) {
      const rssBefore = process.memoryUsage().rss;
      const probe = { text: 'probe', embedding: embedAll(['probe'])[0]!, ownerIds: [agentId], limit: 10 };
      await searchIndex.search(index, { ...probe, mode: 'vector' });
      await searchIndex.annSettled();
      await searchIndex.search(index, { ...probe, mode: 'vector' });
      const graph = searchIndex.annProgress().find((entry) => entry.ownerId === agentId);
      if (graph?.state !== 'ready' || graph.vectors !== stats.chunks)
        throw new Error(`the Agent's ANN graph is not ready: ${JSON.stringify(graph)}`);
      const per100k = 100_000 / stats.chunks;
      const memoryMegabytes = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
      ann = {
        buildSeconds: Number(((graph.buildMs ?? 0) / 1000).toFixed(2)),
        buildSecondsPer100k: Number((((graph.buildMs ?? 0) / 1000) * per100k).toFixed(2)),
        memoryMegabytes: Number(memoryMegabytes.toFixed(1)),
        memoryMegabytesPer100k: Number((memoryMegabytes * per100k).toFixed(1)),
      };
      log(
        `conversations: the Agent's ANN graph of ${stats.chunks.toLocaleString('en-US')} chunks built in ` +
          `${ann.buildSeconds} s, +${ann.memoryMegabytes} MB RSS once loaded`,
      );
    }
    const bm25 =
      stats.chunks >= DEFAULT_BM25_MEMORY_MIN_CHUNKS
        ? await buildBm25(dataDir, index, agentId, memory.bm25Mb * 1024 * 1024)
        : null;
    // After the graph (when there is one): the searches below then go through it. Over 100,000 chunks the plain
    // exact scan reads every embedding from the file for each question: fewer questions.
    const recall = await vectorRecall(
      searchIndex,
      index,
      agentId,
      dataDir,
      stats.chunks > 100_000 ? RECALL_QUERIES / 5 : RECALL_QUERIES,
    );
    log(`conversations: vector leg recall@10 vs the plain exact scan ${recall.toFixed(3)}`);
    return { index, chunks: stats.chunks, ann, bm25, recall };
  } finally {
    await searchIndex.close();
  }
}

/**
 * The index's in-memory BM25 postings, built as the api's BM25 thread builds them at its first search of a large
 * index (here in this thread: the same code) and saved beside search.db, so the api started next loads them.
 */
async function buildBm25(
  dataDir: string,
  index: string,
  agentId: string,
  maxBytes: number,
): Promise<Bm25Build> {
  const builder = new SqliteSearchIndex({
    path: join(dataDir, 'search.db'),
    bm25Worker: null,
    bm25Memory: { maxBytes },
  });
  try {
    const { chunks } = await builder.stats(index);
    await builder.search(index, {
      text: 'probe',
      embedding: [],
      ownerIds: [agentId],
      limit: 10,
      mode: 'bm25',
    });
    await builder.bm25MemorySettled();
    const built = builder.bm25MemoryProgress()[0];
    if (built?.state !== 'ready' || built.rows !== chunks)
      throw new Error(`the BM25 postings are not ready: ${JSON.stringify(built)}`);
    const per100k = 100_000 / chunks;
    const megabytes = (built.bytes ?? 0) / 1024 / 1024;
    const build = {
      buildSeconds: Number(((built.buildMs ?? 0) / 1000).toFixed(2)),
      buildSecondsPer100k: Number((((built.buildMs ?? 0) / 1000) * per100k).toFixed(2)),
      megabytes: Number(megabytes.toFixed(1)),
      megabytesPer100k: Number((megabytes * per100k).toFixed(1)),
    };
    log(
      `conversations: BM25 postings of ${chunks.toLocaleString('en-US')} chunks built in ${build.buildSeconds} s, ` +
        `${build.megabytes} MB, saved beside search.db`,
    );
    return build;
  } finally {
    await builder.close();
  }
}

/**
 * Recall@10 of the vector leg as the api runs it (vector cache on: the int8 first pass, or the Agent's graph from the
 * ANN threshold on) against the plain exact scan (no cache: every vector scored in full), over the bench's first
 * RECALL_QUERIES questions (the turns' own, same generator).
 */
const RECALL_QUERIES = 100;
async function vectorRecall(
  searchIndex: SqliteSearchIndex,
  index: string,
  agentId: string,
  dataDir: string,
  count: number,
): Promise<number> {
  const exact = new SqliteSearchIndex({ path: join(dataDir, 'search.db'), vectorCacheBytes: 0 });
  try {
    const prose = new Prose(seededRandom(99));
    const questions = Array.from(
      { length: count },
      () => `What do the documents say about ${prose.query(prose.topic())}?`,
    );
    const embeddings = embedAll(questions);
    let found = 0;
    let expected = 0;
    for (const [i, text] of questions.entries()) {
      const query = {
        text,
        embedding: embeddings[i]!,
        ownerIds: [agentId],
        limit: 10,
        mode: 'vector' as const,
      };
      const truth = new Set((await exact.search(index, query)).map((hit) => hit.chunkId));
      const served = await searchIndex.search(index, query);
      expected += truth.size;
      found += served.filter((hit) => truth.has(hit.chunkId)).length;
    }
    return expected === 0 ? 1 : found / expected;
  } finally {
    await exact.close();
  }
}

export async function benchConversations(
  options: ConversationsBenchOptions,
): Promise<{ rows: MetricRow[]; details: ConversationsDetails }> {
  for (const path of [options.mainPath, options.upstreamPath])
    if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build first`);
  const dir = makeTempDir('conversations');
  const dataDir = join(dir.path, 'data');
  const children = new Set<ChildProcess>();
  const killAll = () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const onSignal = (signal: NodeJS.Signals) => {
    killAll();
    dir.remove();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', killAll);
  const client = new Client(0);
  try {
    const upstream = await startUpstream(options.upstreamPath, {
      reply: REPLY,
      streamChunks: options.streamChunks,
      chunkDelayMs: options.chunkDelayMs,
      latencyMs: options.upstreamLatencyMs,
    });
    children.add(upstream.child);
    const instant = await startUpstream(options.upstreamPath, { reply: REPLY });
    children.add(instant.child);
    const paced = await startUpstream(options.upstreamPath, PACED_UPSTREAM);
    children.add(paced.child);
    const modelsFile = join(dir.path, 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'providers:',
        `  fake: { baseUrl: http://127.0.0.1:${upstream.port}/v1 }`,
        `  instant: { baseUrl: http://127.0.0.1:${instant.port}/v1 }`,
        `  paced: { baseUrl: http://127.0.0.1:${paced.port}/v1 }`,
        'models:',
        '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat, pricing: { input: 1, output: 2 } }',
        '  - { key: fake-chat-instant, modelId: fake-model, provider: instant, kind: chat, pricing: { input: 1, output: 2 } }',
        '  - { key: fake-chat-paced, modelId: fake-model, provider: paced, kind: chat, pricing: { input: 1, output: 2 } }',
        '',
      ].join('\n'),
    );
    const startApi = async (env: Readonly<Record<string, string>> = {}) => {
      const started = await spawnApi(
        options.mainPath,
        dataDir,
        options.readyTimeoutMs,
        { MODELS_FILE: modelsFile, ...env },
        true,
      );
      children.add(started.child);
      client.port = started.port;
      return started;
    };

    // --- The Agent and its Knowledge ---------------------------------------------------------------------------
    const first = await startApi();
    const space = await client.json<{ id: string }>('POST', `${CORE}/spaces`, { name: 'Bench space' });
    expectStatus('creating the Space', space, 201);
    const systemPrompt = `You are the bench Agent. ${text(400, 3)}`;
    const created = await client.json<{ id: string }>('POST', `${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'Bench agent',
      model: 'fake-chat',
      systemPrompt,
    });
    expectStatus('creating the Agent', created, 201);
    const agentId = created.body.id;
    log(`conversations: adding ${options.documents} documents through the api …`);
    let at = performance.now();
    const documentIds = await addDocuments(client, agentId, options.documents);
    const addSeconds = (performance.now() - at) / 1000;
    log(
      `conversations: ${options.documents} documents Ready in ${addSeconds.toFixed(1)} s; stopping the api`,
    );
    await stop(first.child);
    children.delete(first.child);
    interface Prepared {
      readonly query: string;
      readonly gatewayBody: unknown;
    }
    // --- (1) as a function: run at each Knowledge size -------------------------------------------------------
    const turnsVsGateway = async (
      turnCount: number,
      warmupCount: number,
      apiPid: number,
      fail: (message: string) => Error,
    ) => {
      // --- (1) turn vs gateway vs retrieval alone ----------------------------------------------------------------
      const queryProse = new Prose(seededRandom(99));
      const queries = Array.from(
        { length: warmupCount + turnCount },
        () => `What do the documents say about ${queryProse.query(queryProse.topic())}?`,
      );
      const searchTimes: number[] = [];
      const search = async (query: string, into?: number[]) => {
        const answer = await client.json<{ hits: Hit[] }>('POST', `${CORE}/knowledge/${agentId}/search`, {
          query,
          limit: 8,
        });
        expectStatus('search', answer, 200);
        into?.push(answer.ms);
        return answer.body.hits;
      };
      // The gateway's prompt for each query: the one the turn builds (system prompt, sources block, the message).
      log(`conversations: preparing ${queries.length} prompts (one search each; loads the vector cache) …`);
      const prepared: Prepared[] = [];
      for (const query of queries) {
        const hits = await search(query);
        if (hits.length === 0) throw fail(`no hits for '${query}'`);
        const sources = formatSourcesBlock(
          hits.map((hit, i) => ({
            index: i + 1,
            documentName: hit.documentName,
            sectionPath: hit.sectionPath,
            text: hit.text,
          })),
        );
        prepared.push({
          query,
          gatewayBody: {
            model: 'fake-chat',
            messages: [
              { role: 'system', content: systemPrompt },
              { role: 'system', content: sources },
              { role: 'user', content: query },
            ],
          },
        });
      }

      const turnTimes: number[] = [];
      const gatewayTimes: number[] = [];
      const promptWords = { turn: [] as number[], gateway: [] as number[] };
      const citations: number[] = [];
      const turn = async (item: Prepared, into?: number[]) => {
        const answer = await client.json<TurnResult & { message: { usage: { inputTokens: number } } }>(
          'POST',
          `${CORE}/llm/${agentId}/conversation`,
          { message: item.query },
        );
        expectStatus('a conversation turn', answer, 201);
        if (answer.body.message.content !== REPLY)
          throw fail(`unexpected turn answer: ${answer.raw.slice(0, 500)}`);
        if (into) {
          into.push(answer.ms);
          promptWords.turn.push(answer.body.message.usage.inputTokens);
          citations.push(answer.body.message.citations.length);
        }
      };
      const gateway = async (item: Prepared, into?: number[]) => {
        const answer = await client.json<{
          choices: { message: { content: string } }[];
          usage: { prompt_tokens: number };
        }>('POST', COMPAT_CHAT, item.gatewayBody);
        expectStatus('the gateway', answer, 200);
        if (answer.body.choices[0]?.message.content !== REPLY)
          throw fail(`unexpected gateway answer: ${answer.raw.slice(0, 500)}`);
        if (into) {
          into.push(answer.ms);
          promptWords.gateway.push(answer.body.usage.prompt_tokens);
        }
      };
      const warm = prepared.slice(0, warmupCount);
      log(`conversations: warm-up, ${warm.length} turns, gateway calls and searches …`);
      for (const item of warm) {
        await turn(item);
        await gateway(item);
        await search(item.query);
      }
      const measured = prepared.slice(warmupCount);
      // The api's CPU seconds spent in each path's blocks (every thread: the key store's, the search's included).
      const cpu = { turn: 0, gateway: 0, search: 0 };
      const paths: [keyof typeof cpu, (item: Prepared) => Promise<void>][] = [
        ['turn', (item) => turn(item, turnTimes)],
        ['gateway', (item) => gateway(item, gatewayTimes)],
        ['search', (item) => search(item.query, searchTimes).then(() => undefined)],
      ];
      log(
        `conversations: ${measured.length} sequential turns (new conversation each), gateway calls and searches, ` +
          `blocks of ${options.block} …`,
      );
      for (let from = 0, round = 0; from < measured.length; from += options.block, round++) {
        const items = measured.slice(from, from + options.block);
        const order = [...paths];
        for (let i = 0; i < round % 3; i++) order.push(order.shift()!);
        for (const [name, path] of order) {
          const before = cpuSeconds(apiPid);
          for (const item of items) await path(item);
          cpu[name] += cpuSeconds(apiPid) - before;
        }
      }
      const cpuMsPer = (name: keyof typeof cpu) => (cpu[name] * 1000) / measured.length;
      const turnLatency = latencies(turnTimes);
      const gatewayLatency = latencies(gatewayTimes);
      const searchLatency = latencies(searchTimes);
      const added = turnLatency.p50 - gatewayLatency.p50;
      log(
        `conversations: turn p50 ${turnLatency.p50.toFixed(2)} ms, gateway ${gatewayLatency.p50.toFixed(2)} ms ` +
          `(added ${added.toFixed(2)} ms), search alone ${searchLatency.p50.toFixed(2)} ms; prompt words ` +
          `${median(promptWords.turn)} / ${median(promptWords.gateway)}; api CPU per turn / gateway call / search ` +
          `${cpuMsPer('turn').toFixed(2)} / ${cpuMsPer('gateway').toFixed(2)} / ${cpuMsPer('search').toFixed(2)} ms`,
      );
      return {
        queries,
        prepared,
        measured,
        turnLatency,
        gatewayLatency,
        searchLatency,
        added,
        promptWords,
        citations,
        cpuMs: { turn: cpuMsPer('turn'), gateway: cpuMsPer('gateway'), search: cpuMsPer('search') },
      };
    };

    // --- (1) at the smaller sizes first: the same documents, fewer generated chunks each ---------------------
    const growth: {
      chunks: number;
      addedMs: number;
      searchMs: number;
      annBuildSeconds: number | null;
      recall: number;
    }[] = [];
    /** (1) alone at one Knowledge size, on an api started for it (left running): its row of `growth`. */
    const measureAt = async (
      filled: Awaited<ReturnType<typeof fillIndex>>,
      env: Readonly<Record<string, string>> = {},
    ) => {
      const api = await startApi(env);
      const result = await turnsVsGateway(
        options.smallerTurns,
        options.warmupTurns,
        api.child.pid!,
        (message) => {
          return new Error(`${message}\n${api.output()}`);
        },
      );
      growth.push({
        chunks: filled.chunks,
        addedMs: Number(result.added.toFixed(3)),
        searchMs: Number(result.searchLatency.p50.toFixed(3)),
        annBuildSeconds: filled.ann?.buildSeconds ?? null,
        recall: filled.recall,
      });
      return api;
    };
    const concurrent: { run: Awaited<ReturnType<typeof measureConcurrentTurns>> | null } = { run: null };
    const concurrentTurns = async (filledChunks: number, apiPid: number) => {
      const users = options.concurrentTurns ?? 200;
      if (filledChunks !== CONCURRENT_AT || users === 0 || concurrent.run) return;
      const questionProse = new Prose(seededRandom(7));
      concurrent.run = await measureConcurrentTurns({
        port: client.port,
        agentId,
        apiPid,
        model: 'fake-chat-paced',
        users,
        rampMs: 15_000,
        questions: Array.from(
          { length: users },
          () => `What do the documents say about ${questionProse.query(questionProse.topic())}?`,
        ),
        headers: AUTH,
      });
    };
    for (const chunks of options.smallerChunkCounts) {
      const perDocument = Math.max(1, Math.round(chunks / documentIds.length));
      const smaller = await fillIndex(dataDir, agentId, documentIds, perDocument);
      const api = await measureAt(smaller);
      await concurrentTurns(smaller.chunks, api.child.pid!);
      await stop(api.child);
      children.delete(api.child);
    }
    at = performance.now();
    const filled = await fillIndex(dataDir, agentId, documentIds, options.chunksPerDocument);
    const fillSeconds = (performance.now() - at) / 1000;
    log(
      `conversations: ${filled.chunks.toLocaleString('en-US')} chunks in ${filled.index} in ` +
        `${fillSeconds.toFixed(1)} s; starting the api again`,
    );
    const runningApi = await startApi();
    const fail = (message: string) => new Error(`${message}\n${runningApi.output()}`);
    const {
      queries,
      prepared,
      measured,
      turnLatency,
      gatewayLatency,
      searchLatency,
      added,
      promptWords,
      citations,
      cpuMs,
    } = await turnsVsGateway(options.turns, options.warmupTurns, runningApi.child.pid!, fail);
    growth.push({
      chunks: filled.chunks,
      addedMs: Number(added.toFixed(3)),
      searchMs: Number(searchLatency.p50.toFixed(3)),
      annBuildSeconds: filled.ann?.buildSeconds ?? null,
      recall: filled.recall,
    });

    // --- (2) streaming: first delta vs first content chunk -----------------------------------------------------
    const isDelta = (event: string) => event === 'delta';
    const isContent = (event: string, data: string) => {
      if (event !== 'message' || data === '[DONE]' || data.length === 0) return false;
      const content = (JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[] })
        .choices?.[0]?.delta?.content;
      return typeof content === 'string' && content.length > 0;
    };
    const streamTurn = async (item: Prepared, into?: number[]) => {
      const outcome = await client.stream(
        `${CORE}/llm/${agentId}/conversation`,
        { message: item.query, stream: true },
        isDelta,
      );
      if (outcome.status !== 200 || outcome.firstMs === null || !outcome.events.includes('done'))
        throw fail(`streamed turn: ${outcome.status} ${JSON.stringify(outcome.frames).slice(0, 500)}`);
      const retrieval = outcome.frames.find(([event]) => event === 'retrieval');
      if (!retrieval || (JSON.parse(retrieval[1]) as { sources: unknown[] }).sources.length === 0)
        throw fail('a streamed turn retrieved no sources');
      into?.push(outcome.firstMs);
    };
    const streamGateway = async (item: Prepared, into?: number[]) => {
      const outcome = await client.stream(
        COMPAT_CHAT,
        { ...(item.gatewayBody as object), stream: true },
        isContent,
      );
      if (outcome.status !== 200 || outcome.firstMs === null)
        throw fail(`gateway stream: ${outcome.status} ${JSON.stringify(outcome.frames).slice(0, 500)}`);
      into?.push(outcome.firstMs);
    };
    const firstDelta: number[] = [];
    const firstChunk: number[] = [];
    for (const item of prepared.slice(0, options.warmupStreams)) {
      await streamTurn(item);
      await streamGateway(item);
    }
    const streamItems = Array.from(
      { length: options.streams },
      (_, i) => prepared[options.warmupTurns + (i % measured.length)]!,
    );
    log(`conversations: ${streamItems.length} streamed turns and gateway streams …`);
    for (let from = 0, round = 0; from < streamItems.length; from += options.streamBlock, round++) {
      const items = streamItems.slice(from, from + options.streamBlock);
      const order =
        round % 2 === 0
          ? [
              (item: Prepared) => streamTurn(item, firstDelta),
              (item: Prepared) => streamGateway(item, firstChunk),
            ]
          : [
              (item: Prepared) => streamGateway(item, firstChunk),
              (item: Prepared) => streamTurn(item, firstDelta),
            ];
      for (const path of order) for (const item of items) await path(item);
    }
    const deltaLatency = latencies(firstDelta);
    const chunkLatency = latencies(firstChunk);
    const streamRatio = deltaLatency.p50 / chunkLatency.p50;
    log(
      `conversations: first delta p50 ${deltaLatency.p50.toFixed(2)} ms, gateway first chunk ` +
        `${chunkLatency.p50.toFixed(2)} ms (ratio ${streamRatio.toFixed(2)})`,
    );

    await concurrentTurns(filled.chunks, runningApi.child.pid!);

    // --- (3) listing a long conversation --------------------------------------------------------------------
    const turnsForListing = Math.ceil(options.listingMessages / 2);
    log(
      `conversations: growing one conversation to ${options.listingMessages} messages (${turnsForListing} ` +
        `sequential turns, instant upstream) …`,
    );
    at = performance.now();
    let conversationId: string | null = null;
    let lastTurnMs = 0;
    for (let i = 0; i < turnsForListing; i++) {
      const answer: Answer<TurnResult> = await client.json<TurnResult>(
        'POST',
        `${CORE}/llm/${agentId}/conversation`,
        {
          ...(conversationId ? { conversationId } : {}),
          message: queries[i % queries.length]!,
          model: 'fake-chat-instant',
        },
      );
      expectStatus('a listing-conversation turn', answer, 200, 201);
      conversationId = answer.body.conversationId;
      lastTurnMs = answer.ms;
      if ((i + 1) % 100 === 0)
        log(`conversations: ${(i + 1) * 2} messages (last turn ${answer.ms.toFixed(1)} ms)`);
    }
    const createSeconds = (performance.now() - at) / 1000;
    const messagesPath = `${CORE}/llm/${agentId}/conversation/${conversationId}/messages`;
    const listOnce = async () => {
      const pages: number[] = [];
      let count = 0;
      let cursor: string | null = null;
      const started = performance.now();
      do {
        const query: string = `limit=${options.pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: Answer<{ data: unknown[]; nextCursor: string | null }> = await client.json(
          'GET',
          `${messagesPath}?${query}`,
        );
        expectStatus('listing messages', page, 200);
        pages.push(page.ms);
        count += page.body.data.length;
        cursor = page.body.nextCursor;
      } while (cursor);
      return { pages, count, ms: performance.now() - started };
    };
    const firstPage: number[] = [];
    const everyPage: number[] = [];
    const full: number[] = [];
    let pageCount = 0;
    for (let i = 0; i < 3; i++) await listOnce();
    log(`conversations: ${options.listings} full listings, pages of ${options.pageSize} …`);
    for (let i = 0; i < options.listings; i++) {
      const listing = await listOnce();
      if (listing.count !== options.listingMessages)
        throw fail(`the conversation lists ${listing.count} messages, not ${options.listingMessages}`);
      firstPage.push(listing.pages[0]!);
      everyPage.push(...listing.pages);
      full.push(listing.ms);
      pageCount = listing.pages.length;
    }
    const firstPageLatency = latencies(firstPage);
    const fullLatency = latencies(full);
    log(
      `conversations: ${options.listingMessages} messages made in ${createSeconds.toFixed(1)} s; first page p50 ` +
        `${firstPageLatency.p50.toFixed(2)} ms, full listing (${pageCount} pages) ${fullLatency.p50.toFixed(2)} ms`,
    );

    // --- (4) a turn in that long conversation vs in a 10-message one (bench/long-conversation.ts) --------------
    const long = await measureLongConversation(
      client,
      agentId,
      conversationId!,
      options.listingMessages,
      queries,
      {
        shortMessages: 10,
        turns: options.longConversationTurns ?? 60,
        block: 10,
        warmupTurns: 10,
        model: 'fake-chat-instant',
      },
    );

    // --- (1) again at the larger sizes, last: the api's search memory raised to hold them -------------------------
    const larger = (options.largerChunkCounts ?? []).filter((chunks) => chunks > filled.chunks);
    if (larger.length > 0) {
      await stop(runningApi.child);
      children.delete(runningApi.child);
    }
    for (const chunks of larger) {
      const perDocument = Math.max(1, Math.round(chunks / documentIds.length));
      at = performance.now();
      const big = await fillIndex(dataDir, agentId, documentIds, perDocument);
      log(
        `conversations: ${big.chunks.toLocaleString('en-US')} chunks in ${((performance.now() - at) / 1000).toFixed(1)} s`,
      );
      const memory = searchMemoryFor(big.chunks);
      const api = await measureAt(big, {
        SEARCH_VECTOR_CACHE_MB: String(memory.vectorCacheMb),
        SEARCH_BM25_MEMORY_MB: String(memory.bm25Mb),
      });
      log(
        `conversations: at ${big.chunks.toLocaleString('en-US')} chunks the api's RSS is ` +
          `${memoryOf(api.child.pid!).rssMb.toFixed(0)} MB ` +
          `(vector cache ${memory.vectorCacheMb} MB, BM25 postings ${memory.bm25Mb} MB allowed)`,
      );
      await stop(api.child);
      children.delete(api.child);
    }

    // This machine's floor for the answer's durable append, measured beside the api's files (the api idle).
    const commitFloor = {
      afterPause: await durableCommitP50(dataDir, 5),
      backToBack: await durableCommitP50(dataDir, 0),
    };
    log(
      `conversations: one durable commit 5 ms after the last ${commitFloor.afterPause.toFixed(3)} ms, ` +
        `back to back ${commitFloor.backToBack.toFixed(3)} ms (p50)`,
    );
    const chunksLabel = `${Math.round(filled.chunks / 1000)}k chunks`;
    const rows: MetricRow[] = [
      {
        metric: `conversation turn added latency p50 (retrieval over ${chunksLabel})`,
        value: added,
        unit: 'ms',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '<=', target: filled.chunks >= 50_000 ? 8 : 5 },
      },
      ...growth
        .filter((size) => size.chunks !== filled.chunks)
        .map((size): MetricRow => ({
          metric: `conversation turn added latency p50 (retrieval over ${Math.round(size.chunks / 1000)}k chunks)${size.chunks > filled.chunks ? ' (info)' : ''}`,
          value: size.addedMs,
          unit: 'ms',
          baseline: null,
          baselineLabel: null,
          ratio: null,
          // The issue's goals: 5 ms at 10k (100k is the row above); no goal past the main size.
          goal:
            size.chunks >= 10_000 && size.chunks < filled.chunks
              ? { on: 'value', op: '<=', target: 5 }
              : null,
        })),
      ...(filled.bm25
        ? [
            {
              metric: `  BM25 postings in memory: build s / MB per 100k chunks (info)`,
              value: filled.bm25.buildSecondsPer100k,
              unit: 's',
              baseline: filled.bm25.megabytesPer100k,
              baselineLabel: 'MB',
              ratio: null,
              goal: null,
            } satisfies MetricRow,
          ]
        : []),
      ...(filled.ann
        ? [
            {
              metric: `  the Agent's ANN graph: build s / RSS MB per 100k chunks (info)`,
              value: filled.ann.buildSecondsPer100k,
              unit: 's',
              baseline: filled.ann.memoryMegabytesPer100k,
              baselineLabel: 'MB RSS',
              ratio: null,
              goal: null,
            } satisfies MetricRow,
          ]
        : []),
      {
        metric: `vector leg recall@10 vs the plain exact scan (${chunksLabel}, ${RECALL_QUERIES} questions)`,
        value: filled.recall,
        unit: 'recall@10',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '>=', target: 0.95 },
      },
      {
        metric: `  turn p50 ÷ gateway p50 (${options.upstreamLatencyMs} ms upstream, info)`,
        value: turnLatency.p50,
        unit: 'ms',
        baseline: gatewayLatency.p50,
        baselineLabel: 'ms gateway',
        ratio: turnLatency.p50 / gatewayLatency.p50,
        goal: null,
      },
      {
        metric: `  api CPU per turn ÷ per gateway call (every thread, info)`,
        value: cpuMs.turn,
        unit: 'ms',
        baseline: cpuMs.gateway,
        baselineLabel: 'ms gateway',
        ratio: cpuMs.turn / cpuMs.gateway,
        goal: null,
      },
      {
        metric: `  reference: one durable commit (WAL, FULL) 5 ms after the last ÷ back to back (info)`,
        value: commitFloor.afterPause,
        unit: 'ms',
        baseline: commitFloor.backToBack,
        baselineLabel: 'ms back to back',
        ratio: commitFloor.afterPause / commitFloor.backToBack,
        goal: null,
      },
      {
        metric: `  knowledge search alone p50, POST …/search (info)`,
        value: searchLatency.p50,
        unit: 'ms',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: null,
      },
      {
        metric: 'conversation streaming first delta p50',
        value: deltaLatency.p50,
        unit: 'ms',
        baseline: chunkLatency.p50,
        baselineLabel: 'ms gateway TTFT',
        ratio: streamRatio,
        goal: { on: 'ratio', op: '<=', target: 1.25 },
      },
      {
        metric: `conversation messages, one page of ${options.pageSize} p50 (${options.listingMessages} messages)`,
        value: firstPageLatency.p50,
        unit: 'ms',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '<=', target: 10 },
      },
      {
        metric: `  all ${pageCount} pages of ${options.listingMessages} messages p50 (info)`,
        value: fullLatency.p50,
        unit: 'ms',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: null,
      },
      ...long.rows,
      ...(concurrent.run?.rows ?? []),
    ];
    return {
      rows,
      details: {
        knowledge: {
          documents: documentIds.length,
          chunks: filled.chunks,
          addSeconds: Number(addSeconds.toFixed(2)),
          fillSeconds: Number(fillSeconds.toFixed(2)),
          index: filled.index,
          ann: filled.ann,
          bm25: filled.bm25,
          growth,
        },
        turn: turnLatency,
        gateway: gatewayLatency,
        search: searchLatency,
        addedLatencyP50Ms: Number(added.toFixed(4)),
        apiCpuMs: cpuMs,
        durableCommitMs: commitFloor,
        promptWords: { turn: median(promptWords.turn), gateway: median(promptWords.gateway) },
        citationsPerAnswer: median(citations),
        streaming: { turnFirstDelta: deltaLatency, gatewayFirstChunk: chunkLatency, ratio: streamRatio },
        listing: {
          messages: options.listingMessages,
          createSeconds: Number(createSeconds.toFixed(2)),
          turnMsAtEnd: Number(lastTurnMs.toFixed(2)),
          firstPage: firstPageLatency,
          everyPage: latencies(everyPage),
          fullListing: fullLatency,
          pages: pageCount,
        },
        longConversation: long.details,
        concurrent: concurrent.run?.details ?? null,
        upstream: {
          latencyMs: options.upstreamLatencyMs,
          streamChunks: options.streamChunks,
          chunkDelayMs: options.chunkDelayMs,
          reply: REPLY,
        },
      },
    };
  } finally {
    client.agent.destroy();
    for (const child of [...children].reverse()) await stop(child);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', killAll);
    dir.remove();
  }
}
