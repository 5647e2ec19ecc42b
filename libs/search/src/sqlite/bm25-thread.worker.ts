// The thread a file-backed SqliteSearchIndex ranks large indexes' BM25 legs in (started by bm25-thread.ts): an index
// of its own on the same file, which only reads, each request in a read transaction of its own.
import { parentPort, workerData } from 'node:worker_threads';
import type { Bm25Reply, Bm25Request } from './bm25-thread.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const { path, splitMinChunks } = workerData as { path: string; splitMinChunks: number };
const index = new SqliteSearchIndex({
  path,
  bm25SplitMinChunks: splitMinChunks,
  checkpointWorker: null,
  bm25Worker: null,
  vectorCacheBytes: 0,
});

const reply = (message: Bm25Reply) => parentPort?.postMessage(message);

parentPort?.on('message', ({ id, request }: { id: number; request: Bm25Request }) => {
  try {
    reply({ id, ids: index.bm25Ranks(request) });
  } catch (error) {
    reply({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
reply({ ready: true });
