// Approximate nearest neighbours (HNSW, usearch) for the owners of an embedded search index that hold many chunks.
//
// One usearch graph per (index incarnation, owner) with at least `minChunks` chunks; smaller owners keep the exact
// scan, which is faster there. Keys are chunk rowids. The graph is a projection of the owner's document rows in
// search.db, never of the log directly: the search index is itself rebuilt from the log by the reindex, and each new
// index (a new incarnation) gets its own graphs.
//
// Freshness. An owner's set of document rows is summed up by its signature: (rows, largest doc_rowid). Rows are
// never updated in place for vectors (an upsert deletes and inserts a row, doc_rowids are AUTOINCREMENT), so any
// change of the owner's vectors changes the signature, whichever process wrote it. Each search compares the
// signature read inside its own snapshot with the graph's; on a difference it lists the owner's rows and brings the
// graph to them before searching: removed documents' keys are removed from the graph at once (a deleted chunk is
// never returned), new documents' vectors are added when they are few. Too many to add inline (a first build, a
// restart after a big reindex), and searches take the exact scan (complete, only slower) while a worker thread builds
// a new graph from its own snapshot and reports progress (`progress()`); the finished graph is loaded, brought to the
// rows of the next search's snapshot the same way, and swapped in: a search sees a complete graph or none.
//
// Persistence. Graphs are saved under `<search.db>.ann/<incarnation>/` (a usearch file and a JSON file of the rows
// it holds) when a worker finishes and, if changed since, on close; a restart loads them on first use and applies
// only what changed. A file that does not load is rebuilt. Dropping the index removes its directory.
// Over 300 lines on purpose: the graphs' lifecycle (build, keep in step, persist, search) is one owner-keyed
// cache over usearch.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Index as UsearchIndex } from 'usearch';
import { makePrivateDir, PRIVATE_FILE_MODE } from '#kernel/thread-kit';
import type { AnnGraphProgress } from '../search-index.port.js';
import { unpackVectors } from './packed-vectors.js';
import { segmentsTable } from './vector-segments.js';

const require = createRequire(import.meta.url);
const USEARCH_PATH = require.resolve('usearch');
/** The native addon is loaded on the first graph, not at start: most processes never need one. */
let usearchModule: typeof import('usearch') | undefined;
const usearch = (): typeof import('usearch') =>
  (usearchModule ??= require('usearch') as typeof import('usearch'));

/**
 * HNSW parameters, measured on the bench corpus (offline-embed: feature-hashed, 384 dimensions, short queries far
 * from every chunk, so top scores lie close together: hard for a graph). On 10,000 chunks: M 16, ef 96/128 gave
 * recall@10 0.42; M 32, ef 200/400 0.81; M 32, ef 128/800 0.86; M 32, ef 128/2000 0.947 at 3.1 ms p50 (the exact
 * scan there: ~2 ms, hence the default threshold of 50,000 chunks). Clustered vectors reach 0.99 with far less.
 */
const CONNECTIVITY = 32;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 2000;
const BUILD_RETRY_MS = 60_000;

export interface AnnOptions {
  /** Where graphs are saved (a directory beside search.db), or null to keep them in memory only. */
  readonly directory: string | null;
  /** At most this many vectors are added inline by a search; more go to a worker. */
  readonly inlineAddMax: number;
}

export interface OwnerDocument {
  readonly docRowid: number;
  readonly first: number;
  readonly count: number;
}

export type AnnProgress = AnnGraphProgress;

interface Graph {
  index: UsearchIndex;
  /** doc_rowid → [first chunk, chunk count] of the rows the graph holds. */
  documents: Map<number, OwnerDocument>;
  signature: string;
  dirty: boolean;
}

interface Build {
  worker: Worker;
  /** Set to 1 to ask the build to stop between two native calls (see stopBuild). */
  stop: Int32Array;
  vectors: number;
  total: number;
  done: Promise<void>;
}

interface DocumentSource {
  /** The owner's rows in the current snapshot. */
  listDocuments(): OwnerDocument[];
  /** The packed (unit, Float32) vectors of one row. */
  vectors(docRowid: number): Uint8Array;
}

/**
 * Ends a build: it is asked to stop and stops between two of usearch's native calls. Terminating its thread instead
 * could land inside one, whose failure to reach the ending thread's JavaScript aborts the whole process (node-addon-api
 * throws a C++ Napi::Error that nothing catches: SIGABRT). Resolves once the thread has ended.
 */
function stopBuild(build: Build): Promise<void> {
  Atomics.store(build.stop, 0, 1);
  return build.done;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const { chmodSync, renameSync } = require('node:fs');
const { Index } = require(workerData.usearchPath);
const { dbPath, documentsTable, vectorsTable, ownerId, file, dimensions, params } = workerData;
// Asked to stop (the index closes or is dropped): the thread ends between two native calls, never inside one.
const stop = new Int32Array(workerData.stop);
const stopping = () => Atomics.load(stop, 0) === 1;
const started = performance.now();
const db = new DatabaseSync(dbPath, { readOnly: true });
db.exec('PRAGMA busy_timeout = 5000');
db.exec('BEGIN');
const rows = db.prepare('SELECT doc_rowid, first_chunk, chunk_count FROM ' + documentsTable +
  ' WHERE owner_id = ? AND chunk_count > 0 ORDER BY doc_rowid').all(ownerId);
const read = db.prepare('SELECT vectors FROM ' + documentsTable + ' WHERE doc_rowid = ?');
// A document row written since the vectors table exists holds none: its vectors are in segments (vector-segments.ts).
let segments = null;
const vectorsOf = (row) => {
  const own = read.get(row.doc_rowid).vectors;
  if (own.byteLength > 0) return own;
  segments ??= db.prepare('SELECT vectors FROM ' + vectorsTable + ' WHERE chunk BETWEEN ? AND ? ORDER BY chunk');
  return Buffer.concat(segments.all(row.first_chunk, row.first_chunk + row.chunk_count - 1).map((row) => row.vectors));
};
const total = rows.reduce((sum, row) => sum + row.chunk_count, 0);
const index = new Index({ dimensions, metric: 'cos', quantization: 'f32', connectivity: params.connectivity,
  expansion_add: params.expansionAdd, expansion_search: params.expansionSearch, multi: false });
let vectors = 0;
let reported = 0;
const documents = [];
for (const row of rows) {
  if (stopping()) { db.close(); process.exit(0); }
  const bytes = vectorsOf(row);
  const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const keys = [];
  const kept = [];
  for (let i = 0; i < row.chunk_count; i++) {
    const vector = floats.subarray(i * dimensions, (i + 1) * dimensions);
    if (vector.some((value) => value !== 0)) { keys.push(BigInt(row.first_chunk + i)); kept.push(vector); }
  }
  if (keys.length > 0) {
    const matrix = new Float32Array(keys.length * dimensions);
    kept.forEach((vector, i) => matrix.set(vector, i * dimensions));
    index.add(BigUint64Array.from(keys), matrix, 1);
  }
  documents.push([row.doc_rowid, row.first_chunk, row.chunk_count]);
  vectors += row.chunk_count;
  if (vectors - reported >= 1000) { reported = vectors; parentPort.postMessage({ progress: vectors, total }); }
}
db.exec('COMMIT');
db.close();
if (stopping()) process.exit(0);
index.save(file + '.tmp');
// usearch creates the file with the process's default mode; it holds vectors of private documents.
chmodSync(file + '.tmp', 0o600);
renameSync(file + '.tmp', file);
parentPort.postMessage({ done: true, documents, total, buildMs: performance.now() - started });
`;

const signatureOf = (documents: readonly OwnerDocument[]): string => {
  let max = 0;
  for (const document of documents) if (document.docRowid > max) max = document.docRowid;
  return `${documents.length}:${max}`;
};

export class AnnIndexes {
  private readonly graphs = new Map<string, Graph>();
  private readonly builds = new Map<string, Build>();
  private readonly finished = new Map<string, number>();
  /** When a build last failed, per graph: no other is started for a minute (searches scan exactly meanwhile). */
  private readonly failedAt = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly options: AnnOptions,
    private readonly dbPath: string,
  ) {}

  /**
   * The chunk rowids and cosine similarities of the owner's `k` nearest chunks through its graph, or null when the
   * owner has no usable graph yet (the caller scans exactly; a build is started if none runs).
   */
  search(
    index: string,
    incarnation: string,
    ownerId: string,
    dimensions: number,
    signature: string,
    source: DocumentSource,
    query: Float32Array,
    k: number,
  ): { ids: number[]; scores: number[] } | null {
    const key = `${incarnation}:${ownerId}`;
    let graph = this.graphs.get(key) ?? this.load(index, incarnation, ownerId, dimensions);
    if (graph && graph.signature !== signature) {
      const documents = source.listDocuments();
      if (!this.bringUpToDate(graph, documents, source, dimensions)) {
        this.startBuild(index, incarnation, ownerId, dimensions);
        return null;
      }
    }
    if (!graph) {
      const documents = source.listDocuments();
      const total = documents.reduce((sum, document) => sum + document.count, 0);
      if (total > this.options.inlineAddMax) {
        this.startBuild(index, incarnation, ownerId, dimensions);
        return null;
      }
      graph = this.create(dimensions);
      if (!this.bringUpToDate(graph, documents, source, dimensions)) return null;
      this.graphs.set(key, graph);
    }
    if (graph.index.size() === 0) return { ids: [], scores: [] };
    const found = graph.index.search(query, Math.min(k, graph.index.size()), 1) as {
      keys: BigUint64Array;
      distances: Float32Array;
    };
    const ids: number[] = [];
    const scores: number[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      ids.push(Number(found.keys[i]));
      scores.push(1 - found.distances[i]!);
    }
    return { ids, scores };
  }

  /** Builds under way and graphs serving, for operators and the bench. */
  progress(): AnnProgress[] {
    const out: AnnProgress[] = [];
    for (const [key, build] of this.builds) {
      const [index, ownerId] = this.describe(key);
      out.push({ index, ownerId, state: 'building', vectors: build.vectors, total: build.total });
    }
    for (const [key, graph] of this.graphs) {
      const [index, ownerId] = this.describe(key);
      const size = graph.index.size();
      const buildMs = this.finished.get(key);
      out.push({
        index,
        ownerId,
        state: 'ready',
        vectors: size,
        total: size,
        ...(buildMs === undefined ? {} : { buildMs }),
      });
    }
    return out;
  }

  /** Resolves once every build started so far has finished (or failed). */
  async settled(): Promise<void> {
    while (this.builds.size > 0) await Promise.all([...this.builds.values()].map((build) => build.done));
  }

  /** Forgets (and deletes the files of) every graph of a dropped index incarnation. */
  forget(incarnation: string): void {
    for (const key of [...this.graphs.keys()]) if (key.startsWith(`${incarnation}:`)) this.graphs.delete(key);
    for (const [key, build] of this.builds) {
      if (key.startsWith(`${incarnation}:`)) {
        void stopBuild(build);
        this.builds.delete(key);
      }
    }
    if (this.options.directory)
      rmSync(join(this.options.directory, incarnation), { recursive: true, force: true });
  }

  /** Saves the graphs changed since they were saved, and stops builds. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.builds.values()].map(stopBuild));
    this.builds.clear();
    for (const [key, graph] of this.graphs) if (graph.dirty) this.save(key, graph);
    this.graphs.clear();
  }

  private labels = new Map<string, [string, string]>();

  private describe(key: string): [string, string] {
    return this.labels.get(key) ?? ['', key];
  }

  private create(dimensions: number): Graph {
    return {
      index: new (usearch().Index)({
        dimensions,
        metric: usearch().MetricKind.Cos,
        quantization: usearch().ScalarKind.F32,
        connectivity: CONNECTIVITY,
        expansion_add: EXPANSION_ADD,
        expansion_search: EXPANSION_SEARCH,
        multi: false,
      }),
      documents: new Map(),
      signature: '0:0',
      dirty: true,
    };
  }

  /**
   * Removes the rows that are gone and adds the new ones (when at most `inlineAddMax` vectors); false when there
   * were too many to add (the graph then holds no removed row, but misses new ones: it must not serve).
   */
  private bringUpToDate(
    graph: Graph,
    documents: readonly OwnerDocument[],
    source: DocumentSource,
    dimensions: number,
  ): boolean {
    const current = new Map(documents.map((document) => [document.docRowid, document]));
    for (const [docRowid, document] of graph.documents) {
      if (current.has(docRowid)) continue;
      for (let i = 0; i < document.count; i++) {
        const key = BigInt(document.first + i);
        if (graph.index.contains(key)) graph.index.remove(key);
      }
      graph.documents.delete(docRowid);
      graph.dirty = true;
    }
    const added = documents.filter((document) => !graph.documents.has(document.docRowid));
    const vectors = added.reduce((sum, document) => sum + document.count, 0);
    if (vectors > this.options.inlineAddMax) {
      graph.signature = '';
      return false;
    }
    for (const document of added) {
      const packed = unpackVectors(source.vectors(document.docRowid));
      const keys: bigint[] = [];
      const matrix = new Float32Array(document.count * dimensions);
      for (let i = 0; i < document.count; i++) {
        const vector = packed.subarray(i * dimensions, (i + 1) * dimensions);
        if (!vector.some((value) => value !== 0)) continue;
        matrix.set(vector, keys.length * dimensions);
        keys.push(BigInt(document.first + i));
      }
      if (keys.length > 0)
        graph.index.add(BigUint64Array.from(keys), matrix.subarray(0, keys.length * dimensions), 1);
      graph.documents.set(document.docRowid, document);
      graph.dirty = true;
    }
    graph.signature = signatureOf(documents);
    return true;
  }

  private files(incarnation: string, ownerId: string): { graph: string; rows: string } | null {
    if (!this.options.directory) return null;
    const name = createHash('sha256').update(ownerId).digest('hex').slice(0, 32);
    const directory = join(this.options.directory, incarnation);
    return { graph: join(directory, `${name}.usearch`), rows: join(directory, `${name}.json`) };
  }

  private load(index: string, incarnation: string, ownerId: string, dimensions: number): Graph | undefined {
    const key = `${incarnation}:${ownerId}`;
    this.labels.set(key, [index, ownerId]);
    const files = this.files(incarnation, ownerId);
    if (!files || !existsSync(files.graph) || !existsSync(files.rows)) return undefined;
    try {
      const rows = JSON.parse(readFileSync(files.rows, 'utf8')) as {
        ownerId: string;
        documents: [number, number, number][];
      };
      if (rows.ownerId !== ownerId) return undefined;
      const graph = this.create(dimensions);
      graph.index.load(files.graph);
      if (graph.index.dimensions() !== dimensions) return undefined;
      for (const [docRowid, first, count] of rows.documents)
        graph.documents.set(docRowid, { docRowid, first, count });
      graph.signature = signatureOf([...graph.documents.values()]);
      graph.dirty = false;
      this.graphs.set(key, graph);
      return graph;
    } catch {
      // A torn or foreign file: rebuilt from the rows.
      rmSync(files.graph, { force: true });
      rmSync(files.rows, { force: true });
      return undefined;
    }
  }

  private save(key: string, graph: Graph): void {
    const [, ownerId] = this.describe(key);
    const incarnation = key.slice(0, key.indexOf(':'));
    const files = this.files(incarnation, ownerId);
    if (!files) return;
    makePrivateDir(join(files.graph, '..'));
    graph.index.save(`${files.graph}.tmp`);
    chmodSync(`${files.graph}.tmp`, PRIVATE_FILE_MODE);
    writeFileSync(
      `${files.rows}.tmp`,
      JSON.stringify({
        ownerId,
        documents: [...graph.documents.values()].map((d) => [d.docRowid, d.first, d.count]),
      }),
      { mode: PRIVATE_FILE_MODE },
    );
    renameSync(`${files.graph}.tmp`, files.graph);
    renameSync(`${files.rows}.tmp`, files.rows);
    graph.dirty = false;
  }

  private startBuild(index: string, incarnation: string, ownerId: string, dimensions: number): void {
    const key = `${incarnation}:${ownerId}`;
    this.labels.set(key, [index, ownerId]);
    if (this.builds.has(key) || this.closed) return;
    if (Date.now() - (this.failedAt.get(key) ?? -Infinity) < BUILD_RETRY_MS) return;
    const directory = this.options.directory ?? null;
    const file = directory
      ? this.files(incarnation, ownerId)!.graph
      : join(
          tmpdir(),
          `ann-${process.pid}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.usearch`,
        );
    if (directory) makePrivateDir(join(directory, incarnation));
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        stop: stop.buffer,
        usearchPath: USEARCH_PATH,
        dbPath: this.dbPath,
        documentsTable: `"${index}__documents"`,
        vectorsTable: segmentsTable(index),
        ownerId,
        file,
        dimensions,
        params: {
          connectivity: CONNECTIVITY,
          expansionAdd: EXPANSION_ADD,
          expansionSearch: EXPANSION_SEARCH,
        },
      },
    });
    worker.unref();
    const build: Build = { worker, stop, vectors: 0, total: 0, done: Promise.resolve() };
    let delivered = false;
    build.done = new Promise<void>((resolve) => {
      worker.on(
        'message',
        (message: {
          progress?: number;
          total?: number;
          done?: boolean;
          documents?: [number, number, number][];
          buildMs?: number;
        }) => {
          if (message.progress !== undefined) {
            build.vectors = message.progress;
            build.total = message.total ?? 0;
            return;
          }
          if (!message.done || this.builds.get(key) !== build) return;
          try {
            const graph = this.create(dimensions);
            graph.index.load(file);
            for (const [docRowid, first, count] of message.documents ?? [])
              graph.documents.set(docRowid, { docRowid, first, count });
            graph.signature = signatureOf([...graph.documents.values()]);
            graph.dirty = directory === null;
            if (directory) {
              const rows = this.files(incarnation, ownerId)!.rows;
              writeFileSync(`${rows}.tmp`, JSON.stringify({ ownerId, documents: message.documents ?? [] }), {
                mode: PRIVATE_FILE_MODE,
              });
              renameSync(`${rows}.tmp`, rows);
            } else rmSync(file, { force: true });
            // The next search brings it up to date with its own snapshot before it serves.
            this.graphs.set(key, graph);
            this.finished.set(key, message.buildMs ?? 0);
            delivered = true;
          } catch {
            // Left to the exact scan; the next search starts another build.
          }
        },
      );
      worker.once('error', () => undefined);
      worker.once('exit', () => {
        if (!delivered && !this.closed) this.failedAt.set(key, Date.now());
        if (this.builds.get(key) === build) this.builds.delete(key);
        resolve();
      });
    });
    this.builds.set(key, build);
  }
}
