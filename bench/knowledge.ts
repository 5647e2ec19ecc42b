// Benchmark 5: Knowledge, in-process (no HTTP), with the real parts.
// (a) Ingestion: generated Markdown documents go through the stages a document goes through in the ingestion
//     worker — sniffType, parseDocument (pooled child processes when running from dist), chunkDocument,
//     offlineEmbed in batches of 64, SqliteSearchIndex.upsertDocument on a temp file — one document at a time;
//     chunks/s over the whole pass, with the time of each stage.
// (b) Search: an index of ~100,000 chunks (384-dimension offlineEmbed embeddings, documents of 50 chunks) over
//     ~500 owners: 'global' (~5,000 chunks), Spaces (~1,000 each) and Agents (~150 each, each in a Space). A query
//     is an Agent's: its own id, its Space's and 'global' (~6,150 chunks). Hybrid and BM25-only searches of the same
//     queries are interleaved (order alternating per query), query embeddings computed beforehand (timed apart);
//     p50 of each, and of a query over every owner (admin-style). The vector cache is warm (one all-owners query
//     first): the steady state of a running service whose cache (256 MiB, ~170,000 chunks) holds the index.
// (c) ANN: the same chunks are also written to a second index under one owner (an Agent with ~100,000 chunks). The
//     first search starts its HNSW graph build (a worker thread; build time and the api process's resident memory
//     growth once the graph is loaded, both per 100,000 chunks, and the saved file's size); then the scoped queries'
//     texts run against it in vector and hybrid mode through the graph and through the exact scan (a second instance
//     on the same file whose threshold is never reached), interleaved: p50s, and recall@10 of the graph's vector
//     top 10 against the exact scan's.
// Text comes from a seeded PRNG over a fixed vocabulary (function words, domain words, a generated tail of rarer
// terms; Zipf-distributed, with per-document topic words), so every run indexes the same corpus.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { chunkDocument, parseDocument, PARSES_IN_CHILD_PROCESS, sniffType } from '#knowledge/ingestion/index';
import { EMBEDDING_DIMENSIONS, offlineEmbed } from '#model-providers/offline/offline-embed';
import { countTokens } from '#tokenizer';
import type { IndexedChunk, SearchMode } from '#search';
import { foldTerm, queryTerms } from '#search/sqlite/fts5-query';
import { SqliteSearchIndex } from '#search/sqlite/sqlite-search-index';
import { log, makeTempDir, median, type MetricRow } from './util.js';
import { seededRandom } from '#kernel';

/** As libs/contexts/knowledge/src/ingestion.worker.ts. */
const EMBED_BATCH = 64;
const INDEX = 'chunks_v1';
/** The same chunks under one owner, searched through its HNSW graph. */
const ONE_OWNER_INDEX = 'one_owner_v1';
const ONE_OWNER = 'agt_bench_big';
const ANN_BENCH_MIN_CHUNKS = 50_000;
const LIMIT = 8;

export interface SearchPlan {
  readonly globalChunks: number;
  readonly spaces: number;
  readonly chunksPerSpace: number;
  readonly agents: number;
  readonly chunksPerAgent: number;
  readonly chunksPerDocument: number;
}

export interface KnowledgeOptions {
  readonly ingestion: {
    readonly documents: number;
    readonly sectionsPerDocument: number;
    readonly warmupDocuments: number;
  };
  readonly search: {
    readonly plan: SearchPlan;
    /** Queries of one Agent's scope, each run in hybrid, BM25-only and vector-only mode. */
    readonly queries: number;
    /** Queries over every owner, each in hybrid and BM25-only mode. */
    readonly adminQueries: number;
    readonly warmupQueries: number;
  };
}

interface Latencies {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly mean: number;
  readonly max: number;
}

export interface AnnDetails {
  readonly chunks: number;
  /** The worker's graph build, and per 100,000 chunks. */
  readonly buildSeconds: number;
  readonly buildSecondsPer100k: number;
  /** This process's resident memory growth once the graph is loaded and serving, and per 100,000 chunks. */
  readonly memoryMegabytes: number;
  readonly memoryMegabytesPer100k: number;
  readonly fileMegabytes: number;
  readonly queries: number;
  readonly recallAt10: number;
  readonly vector: { ann: Latencies; exact: Latencies };
  readonly hybrid: { ann: Latencies; exact: Latencies };
}

export interface KnowledgeDetails {
  readonly ingestion: {
    readonly documents: number;
    readonly bytes: number;
    readonly chunks: number;
    readonly tokensPerChunk: number;
    readonly seconds: number;
    readonly chunksPerSecond: number;
    readonly documentsPerSecond: number;
    readonly megabytesPerSecond: number;
    readonly parsesInChildProcess: boolean;
    readonly parseMsPerDocument: Latencies;
    /** Seconds spent in each stage over the pass, and its share of the total. */
    readonly stages: Record<string, { seconds: number; share: number }>;
    readonly kinds: Record<string, number>;
  };
  readonly search: {
    readonly chunks: number;
    readonly documents: number;
    readonly owners: number;
    readonly chunksPerQueryScope: { agent: number; space: number; global: number; total: number };
    readonly wordsPerChunk: number;
    readonly tokensPerChunk: number;
    readonly vocabulary: number;
    readonly build: { seconds: number; generateSeconds: number; embedSeconds: number; upsertSeconds: number };
    readonly fileMegabytes: number;
    readonly queries: number;
    readonly queryEmbeddingMs: Latencies;
    readonly scoped: Record<SearchMode, Latencies>;
    readonly allOwners: { queries: number; hybrid: Latencies; bm25: Latencies };
    readonly ratio: number;
    readonly meanHits: Record<SearchMode, number>;
    readonly bm25EmptyQueries: number;
    /**
     * How common the query words are: chunks holding each distinct query word (fts5vocab), as a share of the index;
     * words in half the chunks or more are left out of the BM25 MATCH by the index.
     */
    readonly queryTerms: { distinct: number; medianShare: number; p90Share: number; commonShare: number };
    readonly ann: AnnDetails | null;
    readonly sampleQueries: string[];
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Deterministic text

const FUNCTION_WORDS =
  `the of and to a in is it that for on with as was be by this are or at from have an not but which they
you we can will all their has more one there if so about when what also into than been would other only its some these
may were such how each used should after most between over use any both where through them our those within while
before then without make must under new same many much need does like no your first two before per during very
here every until up out set via because again just even well once still another next few below above`.split(
    /\s+/,
  );

const DOMAIN_WORDS =
  `account access agent answer api application approval archive audit authentication backup balance
billing branch budget build cache calendar campaign certificate change channel checkout client cluster code commit
compliance configuration connection contract cost customer dashboard data database deadline delivery deployment
design device discount document domain draft email employee endpoint environment error event expense export feature
feedback file filter folder form gateway guide hardware header incident index inventory invoice issue key label
language latency license limit log login manager message metric migration model module monitor network note
notification order owner package page partner password payment permission pipeline plan policy portal price
priority process product profile project prompt provider query queue quota rate record refund region release report
request resource response review risk role rule schedule schema score script search secret security server service
session setting shipment signature size snapshot source space storage stream subscription supplier support survey
system table tag task team template tenant test ticket timeout token tool training transaction upload user vendor
version warehouse webhook window workflow workspace add allow apply approve assign check choose close configure
connect contact copy create define delete deploy disable enable ensure enter expect fail fix follow generate handle
import include install keep list load manage move open prepare provide publish reach read receive reduce remove
replace require reset resolve restart restore retry return rotate run save select send share show sign start stop
store submit switch sync track update upgrade validate verify wait write active annual automatic available basic
critical current daily default different direct early empty external final full global high important initial
internal large late local low main manual maximum minimum monthly next old optional personal previous primary
private public quick recent regular remote required secure separate shared simple single small specific standard
temporary total valid weekly customers orders invoices tickets users agents teams reports settings files documents
messages payments keys tokens logs errors events projects tasks roles rules servers services versions releases
requests responses records fields changes limits regions devices sessions accounts`.split(/\s+/);

const SYLLABLES =
  `ka lo mer tin sa ve ro pan di qu el on ar ist ux bre cal dor fen gi ha jo kel lum mo nor pe ras sil tor
vin wex yar zen ba co de fi gu`.split(/\s+/);

/** The corpus vocabulary in Zipf rank order: function words, then domain words, then a tail of generated terms. */
function vocabulary(size: number): string[] {
  const random = seededRandom(7);
  const seen = new Set<string>();
  const words: string[] = [];
  const add = (word: string) => {
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  };
  FUNCTION_WORDS.forEach(add);
  // Domain words in a shuffled (but fixed) order, so no alphabetical block is uniformly common.
  const domain = [...DOMAIN_WORDS];
  for (let i = domain.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [domain[i], domain[j]] = [domain[j]!, domain[i]!];
  }
  domain.forEach(add);
  while (words.length < size) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)]!;
    add(word);
  }
  return words;
}

const VOCABULARY_SIZE = 30_000;
const TOPICS = 300;
const WORDS_PER_TOPIC = 40;
/** Share of a document's words drawn from its topic's words rather than the whole vocabulary. */
const TOPIC_SHARE = 0.12;
const ZIPF_EXPONENT = 1.05;

export class Prose {
  readonly words = vocabulary(VOCABULARY_SIZE);
  private readonly cumulative: Float64Array;
  private readonly topics: string[][];

  constructor(readonly random: () => number) {
    this.cumulative = new Float64Array(this.words.length);
    let sum = 0;
    for (let rank = 0; rank < this.words.length; rank++) {
      sum += 1 / Math.pow(rank + 1, ZIPF_EXPONENT);
      this.cumulative[rank] = sum;
    }
    const topicRandom = seededRandom(11);
    const from = FUNCTION_WORDS.length;
    this.topics = Array.from({ length: TOPICS }, () =>
      Array.from(
        { length: WORDS_PER_TOPIC },
        () => this.words[from + Math.floor(topicRandom() * Math.min(8000, this.words.length - from))]!,
      ),
    );
  }

  topic(): number {
    return Math.floor(this.random() * TOPICS);
  }

  /** A word's rank: 0 is the most common. */
  rank(): number {
    const target = this.random() * this.cumulative[this.cumulative.length - 1]!;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  word(topic: number): string {
    if (this.random() < TOPIC_SHARE) {
      const words = this.topics[topic]!;
      return words[Math.floor(this.random() * words.length)]!;
    }
    return this.words[this.rank()]!;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  sentence(topic: number, words = this.int(6, 22)): string {
    const out: string[] = [];
    for (let i = 0; i < words; i++) {
      let word = this.word(topic);
      if (i === 0) word = word[0]!.toUpperCase() + word.slice(1);
      else if (i < words - 1 && this.random() < 0.06) word += ',';
      out.push(word);
    }
    if (this.random() < 0.05) out.splice(this.int(1, out.length - 1), 0, String(this.int(2, 2048)));
    return `${out.join(' ')}${this.random() < 0.05 ? '?' : '.'}`;
  }

  paragraph(topic: number, sentences = this.int(2, 6)): string {
    return Array.from({ length: sentences }, () => this.sentence(topic)).join(' ');
  }

  /** Prose of about `words` words, in whole sentences. */
  passage(topic: number, words: number): string {
    const out: string[] = [];
    let count = 0;
    while (count < words) {
      const length = Math.min(this.int(6, 22), Math.max(3, words - count));
      out.push(this.sentence(topic, length));
      count += length;
    }
    return out.join(' ');
  }

  title(topic: number, words = this.int(2, 5)): string {
    return Array.from({ length: words }, () => {
      const word = this.words[FUNCTION_WORDS.length + Math.floor(this.random() * 2000)]!;
      return this.random() < 0.3 ? this.word(topic) : word[0]!.toUpperCase() + word.slice(1);
    }).join(' ');
  }

  identifier(topic: number): string {
    const parts = [this.word(topic), this.word(topic)].map((word) => word.replace(/[^a-z0-9]/gi, ''));
    return parts[0]! + parts[1]![0]!.toUpperCase() + parts[1]!.slice(1);
  }

  /** A Markdown document: a title, an introduction, then sections of prose with the odd list, code block, table. */
  markdown(sections: number): string {
    const topic = this.topic();
    const out: string[] = [`# ${this.title(topic)}`, this.paragraph(topic)];
    for (let s = 0; s < sections; s++) {
      out.push(`${s > 0 && this.random() < 0.25 ? '###' : '##'} ${this.title(topic)}`);
      const paragraphs = this.int(1, 3);
      for (let p = 0; p < paragraphs; p++) out.push(this.paragraph(topic));
      const extra = this.random();
      if (extra < 0.2) {
        out.push(
          Array.from({ length: this.int(3, 6) }, () => `- ${this.sentence(topic, this.int(3, 10))}`).join(
            '\n',
          ),
        );
      } else if (extra < 0.3) {
        const lines = Array.from(
          { length: this.int(3, 8) },
          () =>
            `const ${this.identifier(topic)} = await client.${this.identifier(topic)}('${this.word(topic)}');`,
        );
        out.push(['```ts', ...lines, '```'].join('\n'));
      } else if (extra < 0.37) {
        const columns = this.int(2, 4);
        const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
        const rows = [
          row(Array.from({ length: columns }, () => this.title(topic, 1))),
          row(Array.from({ length: columns }, () => '---')),
          ...Array.from({ length: this.int(2, 6) }, () =>
            row(
              Array.from({ length: columns }, (_, c) =>
                c === 0 ? this.word(topic) : String(this.int(1, 999)),
              ),
            ),
          ),
        ];
        out.push(rows.join('\n'));
      } else if (extra < 0.45) {
        out.push(
          `Set \`${this.identifier(topic)}\` before you ${this.sentence(topic, this.int(4, 10)).toLowerCase()}`,
        );
      }
    }
    return `${out.join('\n\n')}\n`;
  }

  /** Words for a query: 2–5 distinct words of the corpus distribution (30 % from one topic's words), few function words. */
  query(topic: number): string {
    const count = this.int(2, 5);
    const words = new Set<string>();
    while (words.size < count) {
      let rank = this.rank();
      // About one word in ten stays a function word ("reset the password"), the rest are content words.
      if (rank < FUNCTION_WORDS.length && this.random() >= 0.1)
        while (rank < FUNCTION_WORDS.length) rank = this.rank();
      words.add(
        this.random() < 0.3 ? this.topics[topic]![this.int(0, WORDS_PER_TOPIC - 1)]! : this.words[rank]!,
      );
    }
    return [...words].join(' ');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Measurement helpers

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function latencies(values: readonly number[]): Latencies {
  const round = (value: number) => Number(value.toFixed(4));
  return {
    p50: round(median(values)),
    p90: round(percentile(values, 90)),
    p99: round(percentile(values, 99)),
    mean: round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)),
    max: round(Math.max(...values)),
  };
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(3));

/** Embeds texts in batches of EMBED_BATCH with the offline provider, as the ingestion worker does. */
export function embedAll(texts: readonly string[]): number[][] {
  const vectors: number[][] = [];
  for (let from = 0; from < texts.length; from += EMBED_BATCH)
    vectors.push(...offlineEmbed(texts.slice(from, from + EMBED_BATCH)).vectors);
  return vectors;
}

// ---------------------------------------------------------------------------------------------------------------
// (a) Ingestion

async function ingest(
  searchIndex: SqliteSearchIndex,
  documents: readonly { name: string; bytes: Uint8Array }[],
  idPrefix: string,
): Promise<{
  chunks: number;
  tokens: number;
  stages: Record<string, number>;
  parses: number[];
  kinds: Record<string, number>;
}> {
  const stages = { sniff: 0, parse: 0, chunk: 0, embed: 0, upsert: 0 };
  const parses: number[] = [];
  const kinds: Record<string, number> = {};
  let chunks = 0;
  let tokens = 0;
  for (const [n, document] of documents.entries()) {
    const documentId = `${idPrefix}_${n}`;
    let at = performance.now();
    const lap = (stage: keyof typeof stages) => {
      const now = performance.now();
      stages[stage] += now - at;
      at = now;
    };
    const type = await sniffType(document.bytes, document.name);
    if (!type) throw new Error(`${document.name}: sniffType found no supported type`);
    lap('sniff');
    const parsed = await parseDocument(document.bytes, type.kind);
    parses.push(performance.now() - at);
    lap('parse');
    const pieces = chunkDocument(parsed);
    lap('chunk');
    const vectors = embedAll(pieces.map((chunk) => chunk.text));
    lap('embed');
    await searchIndex.upsertDocument(
      INDEX,
      documentId,
      1,
      pieces.map((chunk, i): IndexedChunk => ({
        chunkId: `${documentId}:1:${chunk.index}`,
        documentId,
        version: 1,
        ownerId: 'global',
        tagIds: [],
        sectionPath: chunk.sectionPath,
        start: chunk.start,
        end: chunk.end,
        text: chunk.text,
        embedding: vectors[i]!,
        documentName: document.name,
      })),
    );
    lap('upsert');
    kinds[type.kind] = (kinds[type.kind] ?? 0) + 1;
    chunks += pieces.length;
    tokens += pieces.reduce((sum, chunk) => sum + chunk.tokenCount, 0);
  }
  return { chunks, tokens, stages, parses, kinds };
}

async function benchIngestion(
  dir: string,
  options: KnowledgeOptions['ingestion'],
): Promise<{ row: MetricRow; details: KnowledgeDetails['ingestion'] }> {
  const prose = new Prose(seededRandom(20_240_501));
  const make = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, n) => ({
      name: `${prefix}-${String(n).padStart(4, '0')}.md`,
      bytes: new Uint8Array(Buffer.from(prose.markdown(options.sectionsPerDocument), 'utf8')),
    }));
  const warmup = make(options.warmupDocuments, 'warmup');
  const documents = make(options.documents, 'handbook');
  const bytes = documents.reduce((sum, document) => sum + document.bytes.byteLength, 0);
  log(
    `knowledge: ingestion of ${documents.length} Markdown documents (${(bytes / 1024 / 1024).toFixed(1)} MB), ` +
      `parses ${PARSES_IN_CHILD_PROCESS ? 'in pooled child processes' : 'in this thread'}`,
  );

  const searchIndex = new SqliteSearchIndex({ path: join(dir, 'ingestion.db') });
  try {
    await searchIndex.ensureIndex(INDEX, { dimensions: EMBEDDING_DIMENSIONS });
    await ingest(searchIndex, warmup, 'warmup');
    const started = performance.now();
    const result = await ingest(searchIndex, documents, 'doc');
    const elapsed = performance.now() - started;
    const stats = await searchIndex.stats(INDEX);
    if (stats.documents !== documents.length + warmup.length)
      throw new Error(
        `ingestion indexed ${stats.documents} documents, not ${documents.length + warmup.length}`,
      );
    const chunksPerSecond = result.chunks / (elapsed / 1000);
    const stageTotal = Object.values(result.stages).reduce((a, b) => a + b, 0);
    const details: KnowledgeDetails['ingestion'] = {
      documents: documents.length,
      bytes,
      chunks: result.chunks,
      tokensPerChunk: Number((result.tokens / result.chunks).toFixed(1)),
      seconds: seconds(elapsed),
      chunksPerSecond: Number(chunksPerSecond.toFixed(1)),
      documentsPerSecond: Number((documents.length / (elapsed / 1000)).toFixed(2)),
      megabytesPerSecond: Number((bytes / 1024 / 1024 / (elapsed / 1000)).toFixed(3)),
      parsesInChildProcess: PARSES_IN_CHILD_PROCESS,
      parseMsPerDocument: latencies(result.parses),
      stages: Object.fromEntries(
        Object.entries(result.stages).map(([stage, ms]) => [
          stage,
          { seconds: seconds(ms), share: Number((ms / stageTotal).toFixed(3)) },
        ]),
      ),
      kinds: result.kinds,
    };
    log(
      `knowledge: ingested ${result.chunks} chunks in ${(elapsed / 1000).toFixed(1)} s: ` +
        `${chunksPerSecond.toFixed(0)} chunks/s, ${details.documentsPerSecond} docs/s; stages ` +
        Object.entries(details.stages)
          .map(([stage, { share }]) => `${stage} ${(share * 100).toFixed(0)}%`)
          .join(', '),
    );
    return {
      row: {
        metric: 'knowledge ingestion',
        value: chunksPerSecond,
        unit: 'chunks/s',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: null,
      },
      details,
    };
  } finally {
    await searchIndex.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (b) Search

interface Owner {
  readonly id: string;
  readonly chunks: number;
  /** The Space of an Agent. */
  readonly spaceId?: string;
}

function owners(plan: SearchPlan): Owner[] {
  const spaces = Array.from({ length: plan.spaces }, (_, i) => ({
    id: `spc_bench_${String(i).padStart(4, '0')}`,
    chunks: plan.chunksPerSpace,
  }));
  const agents = Array.from({ length: plan.agents }, (_, i) => ({
    id: `agt_bench_${String(i).padStart(4, '0')}`,
    chunks: plan.chunksPerAgent,
    spaceId: spaces[i % spaces.length]!.id,
  }));
  return [{ id: 'global', chunks: plan.globalChunks }, ...spaces, ...agents];
}

async function buildSearchIndex(
  searchIndex: SqliteSearchIndex,
  prose: Prose,
  plan: SearchPlan,
  all: readonly Owner[],
): Promise<
  { chunks: number; words: number; tokens: number; sampled: number } & KnowledgeDetails['search']['build']
> {
  // Documents of ~chunksPerDocument chunks, uploaded in a shuffled order (owners' rows interleave as in real life).
  const documents: { ownerId: string; chunks: number }[] = [];
  for (const owner of all)
    for (let left = owner.chunks; left > 0; left -= plan.chunksPerDocument)
      documents.push({ ownerId: owner.id, chunks: Math.min(left, plan.chunksPerDocument) });
  for (let i = documents.length - 1; i > 0; i--) {
    const j = Math.floor(prose.random() * (i + 1));
    [documents[i], documents[j]] = [documents[j]!, documents[i]!];
  }
  const total = documents.reduce((sum, document) => sum + document.chunks, 0);
  let generateMs = 0;
  let embedMs = 0;
  let upsertMs = 0;
  let chunks = 0;
  let words = 0;
  let tokens = 0;
  let sampled = 0;
  let nextLog = 0.1;
  const started = performance.now();
  for (const [n, document] of documents.entries()) {
    const documentId = `doc_${String(n).padStart(5, '0')}`;
    const topic = prose.topic();
    let at = performance.now();
    const title = prose.title(topic);
    const sections = Array.from({ length: Math.ceil(document.chunks / 3) }, () => prose.title(topic));
    const texts = Array.from({ length: document.chunks }, () => prose.passage(topic, prose.int(40, 200)));
    for (const text of texts) words += text.split(' ').length;
    // Tokens on a sample only: counting them all would cost as much as embedding.
    if (n % 20 === 0) {
      tokens += texts.reduce((sum, text) => sum + countTokens(text), 0);
      sampled += texts.length;
    }
    let now = performance.now();
    generateMs += now - at;
    at = now;
    const vectors = embedAll(texts);
    now = performance.now();
    embedMs += now - at;
    at = now;
    let offset = 0;
    await searchIndex.upsertDocument(
      INDEX,
      documentId,
      1,
      texts.map((text, i): IndexedChunk => {
        const start = offset;
        offset += text.length + 2;
        return {
          chunkId: `${documentId}:1:${i}`,
          documentId,
          version: 1,
          ownerId: document.ownerId,
          tagIds: [],
          sectionPath: [title, sections[Math.floor(i / 3)]!],
          start,
          end: start + text.length,
          text,
          embedding: vectors[i]!,
          documentName: `${title}.md`,
        };
      }),
    );
    upsertMs += performance.now() - at;
    await searchIndex.upsertDocument(
      ONE_OWNER_INDEX,
      documentId,
      1,
      texts.map((text, i): IndexedChunk => ({
        chunkId: `${documentId}:1:${i}`,
        documentId,
        version: 1,
        ownerId: ONE_OWNER,
        tagIds: [],
        sectionPath: [title],
        start: 0,
        end: text.length,
        text,
        embedding: vectors[i]!,
        documentName: `${title}.md`,
      })),
    );
    chunks += document.chunks;
    if (chunks / total >= nextLog) {
      log(
        `knowledge: indexed ${chunks.toLocaleString('en-US')}/${total.toLocaleString('en-US')} chunks ` +
          `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
      nextLog += 0.1;
    }
  }
  return {
    chunks,
    words,
    tokens,
    sampled,
    seconds: seconds(performance.now() - started),
    generateSeconds: seconds(generateMs),
    embedSeconds: seconds(embedMs),
    upsertSeconds: seconds(upsertMs),
  };
}

/** How many chunks hold each distinct query word, read from the index's fts5vocab table on a second connection. */
function termFrequencies(
  path: string,
  chunks: number,
  queries: readonly { text: string }[],
): KnowledgeDetails['search']['queryTerms'] {
  const distinct = [...new Set(queries.flatMap((query) => queryTerms(query.text).map(foldTerm)))];
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const lookup = db.prepare(`SELECT doc FROM "${INDEX}__vocab" WHERE term = ?`);
    const shares = distinct.map(
      (term) => Number((lookup.get(term) as { doc: number } | undefined)?.doc ?? 0) / chunks,
    );
    const round = (value: number) => Number(value.toFixed(5));
    return {
      distinct: distinct.length,
      medianShare: round(median(shares)),
      p90Share: round(percentile(shares, 90)),
      commonShare: round(shares.filter((share) => share >= 0.5).length / Math.max(1, shares.length)),
    };
  } finally {
    db.close();
  }
}

async function benchSearch(
  dir: string,
  options: KnowledgeOptions['search'],
): Promise<{ rows: MetricRow[]; details: KnowledgeDetails['search'] }> {
  const { plan } = options;
  const all = owners(plan);
  const agents = all.filter((owner) => owner.spaceId !== undefined);
  const prose = new Prose(seededRandom(4242));
  const path = join(dir, 'search.db');
  const searchIndex = new SqliteSearchIndex({ path });
  try {
    await searchIndex.ensureIndex(INDEX, { dimensions: EMBEDDING_DIMENSIONS });
    await searchIndex.ensureIndex(ONE_OWNER_INDEX, { dimensions: EMBEDDING_DIMENSIONS });
    const planned = all.reduce((sum, owner) => sum + owner.chunks, 0);
    log(
      `knowledge: building a search index of ${planned.toLocaleString('en-US')} chunks over ${all.length} owners …`,
    );
    const built = await buildSearchIndex(searchIndex, prose, plan, all);
    const stats = await searchIndex.stats(INDEX);
    if (stats.chunks !== built.chunks)
      throw new Error(`index holds ${stats.chunks} chunks, not ${built.chunks}`);
    log(
      `knowledge: index built in ${built.seconds.toFixed(1)} s (generate ${built.generateSeconds.toFixed(1)} s, ` +
        `embed ${built.embedSeconds.toFixed(1)} s, upsert ${built.upsertSeconds.toFixed(1)} s)`,
    );

    // Queries: an Agent's scope (its id, its Space, 'global'), words of the corpus, embedded beforehand.
    const queryRandom = seededRandom(99);
    const pickAgent = () => agents[Math.floor(queryRandom() * agents.length)]!;
    const allOwnerIds = all.map((owner) => owner.id);
    const embedMs: number[] = [];
    const makeQueries = (count: number, scoped: boolean) =>
      Array.from({ length: count }, () => {
        const agent = pickAgent();
        const text = prose.query(prose.topic());
        const at = performance.now();
        const embedding = offlineEmbed([text]).vectors[0]!;
        embedMs.push(performance.now() - at);
        return { text, embedding, ownerIds: scoped ? [agent.id, agent.spaceId!, 'global'] : allOwnerIds };
      });
    const warmup = makeQueries(options.warmupQueries, true);
    const queries = makeQueries(options.queries, true);
    const adminQueries = makeQueries(options.adminQueries, false);

    const timings: Record<SearchMode, number[]> = { hybrid: [], bm25: [], vector: [] };
    const hits: Record<SearchMode, number> = { hybrid: 0, bm25: 0, vector: 0 };
    let bm25Empty = 0;
    const run = async (query: (typeof queries)[number], mode: SearchMode) => {
      const at = performance.now();
      const found = await searchIndex.search(INDEX, { ...query, limit: LIMIT, mode });
      return { ms: performance.now() - at, hits: found.length };
    };

    // Warm-up: one query over every owner (loads every document's vectors into the cache), then scoped queries.
    log(`knowledge: warm-up (${warmup.length} queries × 3 modes, 1 over all owners) …`);
    await run(adminQueries[0] ?? { ...warmup[0]!, ownerIds: allOwnerIds }, 'hybrid');
    for (const query of warmup)
      for (const mode of ['hybrid', 'bm25', 'vector'] as const) await run(query, mode);

    log(`knowledge: ${queries.length} scoped queries, hybrid / BM25 / vector interleaved …`);
    const orders: SearchMode[][] = [
      ['hybrid', 'bm25', 'vector'],
      ['bm25', 'hybrid', 'vector'],
      ['vector', 'bm25', 'hybrid'],
      ['bm25', 'vector', 'hybrid'],
    ];
    for (const [n, query] of queries.entries()) {
      for (const mode of orders[n % orders.length]!) {
        const result = await run(query, mode);
        timings[mode].push(result.ms);
        hits[mode] += result.hits;
        if (mode === 'bm25' && result.hits === 0) bm25Empty++;
      }
    }

    log(
      `knowledge: ${adminQueries.length} queries over all ${all.length} owners, hybrid / BM25 interleaved …`,
    );
    const admin: Record<'hybrid' | 'bm25', number[]> = { hybrid: [], bm25: [] };
    for (const [n, query] of adminQueries.entries()) {
      for (const mode of n % 2 === 0 ? (['hybrid', 'bm25'] as const) : (['bm25', 'hybrid'] as const))
        admin[mode].push((await run(query, mode)).ms);
    }

    const terms = termFrequencies(path, built.chunks, [...queries, ...adminQueries]);
    // The HNSW graphs are off by default (DEFAULT_ANN_MIN_CHUNKS) and building one over the one-owner index takes 4–18
    // minutes on 2 cores: measured only when asked (BENCH_ANN=1).
    const ann =
      process.env.BENCH_ANN === '1' ? await benchAnn(path, searchIndex, built.chunks, queries) : null;

    const scoped = {
      hybrid: latencies(timings.hybrid),
      bm25: latencies(timings.bm25),
      vector: latencies(timings.vector),
    };
    const allOwners = {
      queries: adminQueries.length,
      hybrid: latencies(admin.hybrid),
      bm25: latencies(admin.bm25),
    };
    const agentScope = plan.chunksPerAgent;
    const details: KnowledgeDetails['search'] = {
      chunks: built.chunks,
      documents: stats.documents,
      owners: all.length,
      chunksPerQueryScope: {
        agent: agentScope,
        space: plan.chunksPerSpace,
        global: plan.globalChunks,
        total: agentScope + plan.chunksPerSpace + plan.globalChunks,
      },
      wordsPerChunk: Number((built.words / built.chunks).toFixed(1)),
      tokensPerChunk: Number((built.tokens / Math.max(1, built.sampled)).toFixed(1)),
      vocabulary: prose.words.length,
      build: {
        seconds: built.seconds,
        generateSeconds: built.generateSeconds,
        embedSeconds: built.embedSeconds,
        upsertSeconds: built.upsertSeconds,
      },
      fileMegabytes: Number(
        (
          (statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0)) /
          1024 /
          1024
        ).toFixed(1),
      ),
      queries: queries.length,
      queryEmbeddingMs: latencies(embedMs),
      scoped,
      allOwners,
      ratio: scoped.hybrid.p50 / scoped.bm25.p50,
      meanHits: {
        hybrid: Number((hits.hybrid / queries.length).toFixed(2)),
        bm25: Number((hits.bm25 / queries.length).toFixed(2)),
        vector: Number((hits.vector / queries.length).toFixed(2)),
      },
      bm25EmptyQueries: bm25Empty,
      queryTerms: terms,
      ann,
      sampleQueries: queries.slice(0, 8).map((query) => query.text),
    };
    log(
      `knowledge: scoped p50 hybrid ${scoped.hybrid.p50.toFixed(2)} ms, BM25 ${scoped.bm25.p50.toFixed(2)} ms, ` +
        `vector ${scoped.vector.p50.toFixed(2)} ms; all owners hybrid ${allOwners.hybrid.p50.toFixed(2)} ms, ` +
        `BM25 ${allOwners.bm25.p50.toFixed(2)} ms; query embedding p50 ${details.queryEmbeddingMs.p50.toFixed(3)} ms`,
    );

    const size = `${Math.round(built.chunks / 1000)}k chunks`;
    const rows: MetricRow[] = [
      {
        metric: `knowledge hybrid search p50 (${size})`,
        value: scoped.hybrid.p50,
        unit: 'ms',
        baseline: null,
        baselineLabel: null,
        ratio: null,
        goal: { on: 'value', op: '<=', target: 30 },
      },
      {
        metric: 'knowledge hybrid ÷ BM25-only p50',
        value: scoped.hybrid.p50,
        unit: 'ms',
        baseline: scoped.bm25.p50,
        baselineLabel: 'BM25 p50 ms',
        ratio: details.ratio,
        goal: { on: 'ratio', op: '<=', target: 1.8 },
      },
      {
        metric: `  knowledge hybrid p50, all ${all.length} owners (info)`,
        value: allOwners.hybrid.p50,
        unit: 'ms',
        baseline: allOwners.bm25.p50,
        baselineLabel: 'BM25 p50 ms',
        ratio: allOwners.hybrid.p50 / allOwners.bm25.p50,
        goal: null,
      },
      ...(ann
        ? ([
            {
              metric: `knowledge ANN recall@10 vs exact (one owner, ${size})`,
              value: ann.recallAt10,
              unit: '',
              baseline: null,
              baselineLabel: null,
              ratio: null,
              goal: { on: 'value', op: '>=', target: 0.95 },
            },
            {
              metric: `  knowledge vector search p50, one owner of ${size}: ANN vs exact (info)`,
              value: ann.vector.ann.p50,
              unit: 'ms',
              baseline: ann.vector.exact.p50,
              baselineLabel: 'exact p50 ms',
              ratio: ann.vector.ann.p50 / ann.vector.exact.p50,
              goal: null,
            },
            {
              metric: `  knowledge hybrid search p50, one owner of ${size}: ANN vs exact (info)`,
              value: ann.hybrid.ann.p50,
              unit: 'ms',
              baseline: ann.hybrid.exact.p50,
              baselineLabel: 'exact p50 ms',
              ratio: ann.hybrid.ann.p50 / ann.hybrid.exact.p50,
              goal: null,
            },
            {
              metric: '  knowledge ANN graph build, s per 100k chunks (info)',
              value: ann.buildSecondsPer100k,
              unit: 's',
              baseline: null,
              baselineLabel: null,
              ratio: null,
              goal: null,
            },
            {
              metric: '  knowledge ANN graph memory, MB per 100k chunks (info)',
              value: ann.memoryMegabytesPer100k,
              unit: 'MB',
              baseline: null,
              baselineLabel: null,
              ratio: null,
              goal: null,
            },
          ] satisfies MetricRow[])
        : []),
    ];
    return { rows, details };
  } finally {
    await searchIndex.close();
  }
}

/** (c): the one-owner index through its HNSW graph against the exact scan. */
async function benchAnn(
  path: string,
  searchIndex: SqliteSearchIndex,
  chunks: number,
  queries: readonly { text: string; embedding: number[] | Float32Array }[],
): Promise<AnnDetails> {
  const exact = searchIndex;
  // The graph is off by default: this instance turns it on from 50,000 chunks.
  const approximate = new SqliteSearchIndex({ path, ann: { minChunks: ANN_BENCH_MIN_CHUNKS } });
  try {
    const ask = (index: SqliteSearchIndex, query: (typeof queries)[number], mode: SearchMode) =>
      index.search(ONE_OWNER_INDEX, { ...query, ownerIds: [ONE_OWNER], limit: 10, mode });
    log(`knowledge: ANN graph of one owner's ${chunks.toLocaleString('en-US')} chunks, built in a worker …`);
    const rssBefore = process.memoryUsage().rss;
    await ask(approximate, queries[0]!, 'vector');
    await approximate.annSettled();
    await ask(approximate, queries[0]!, 'vector');
    const memoryMegabytes = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    const graph = approximate.annProgress().find((entry) => entry.index === ONE_OWNER_INDEX);
    if (!graph || graph.state !== 'ready' || graph.vectors !== chunks)
      throw new Error(`the ANN graph is not ready: ${JSON.stringify(graph)}`);
    const buildSeconds = (graph.buildMs ?? 0) / 1000;
    const annDir = `${path}.ann`;
    const fileMegabytes = readdirSync(annDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
    const timings = {
      vector: { ann: [] as number[], exact: [] as number[] },
      hybrid: { ann: [] as number[], exact: [] as number[] },
    };
    let found = 0;
    for (const [n, query] of queries.entries()) {
      const order = n % 2 === 0 ? ([approximate, exact] as const) : ([exact, approximate] as const);
      const tops = new Map<SqliteSearchIndex, string[]>();
      for (const mode of ['vector', 'hybrid'] as const) {
        for (const index of order) {
          const at = performance.now();
          const hits = await ask(index, query, mode);
          timings[mode][index === exact ? 'exact' : 'ann'].push(performance.now() - at);
          if (mode === 'vector')
            tops.set(
              index,
              hits.map((hit) => hit.chunkId),
            );
        }
      }
      const expected = new Set(tops.get(exact));
      found += tops.get(approximate)!.filter((chunkId) => expected.has(chunkId)).length;
    }
    const per100k = 100_000 / chunks;
    const details: AnnDetails = {
      chunks,
      buildSeconds: seconds(buildSeconds * 1000),
      buildSecondsPer100k: Number((buildSeconds * per100k).toFixed(1)),
      memoryMegabytes: Number(memoryMegabytes.toFixed(1)),
      memoryMegabytesPer100k: Number((memoryMegabytes * per100k).toFixed(1)),
      fileMegabytes: Number((fileMegabytes / 1024 / 1024).toFixed(1)),
      queries: queries.length,
      recallAt10: Number((found / (queries.length * 10)).toFixed(4)),
      vector: { ann: latencies(timings.vector.ann), exact: latencies(timings.vector.exact) },
      hybrid: { ann: latencies(timings.hybrid.ann), exact: latencies(timings.hybrid.exact) },
    };
    log(
      `knowledge: ANN over ${chunks.toLocaleString('en-US')} chunks: build ${details.buildSeconds} s, ` +
        `+${details.memoryMegabytes} MB RSS, file ${details.fileMegabytes} MB; recall@10 ${details.recallAt10}; ` +
        `vector p50 ${details.vector.ann.p50.toFixed(2)} ms (exact ${details.vector.exact.p50.toFixed(2)}), ` +
        `hybrid p50 ${details.hybrid.ann.p50.toFixed(2)} ms (exact ${details.hybrid.exact.p50.toFixed(2)})`,
    );
    return details;
  } finally {
    await approximate.close();
  }
}

export async function benchKnowledge(
  options: KnowledgeOptions,
): Promise<{ rows: MetricRow[]; details: KnowledgeDetails }> {
  const dir = makeTempDir('knowledge');
  try {
    const ingestion = await benchIngestion(dir.path, options.ingestion);
    const search = await benchSearch(dir.path, options.search);
    return {
      rows: [ingestion.row, ...search.rows],
      details: { ingestion: ingestion.details, search: search.details },
    };
  } finally {
    dir.remove();
  }
}
