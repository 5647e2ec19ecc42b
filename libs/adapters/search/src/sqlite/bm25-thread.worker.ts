// The thread a file-backed SqliteSearchIndex ranks large indexes' BM25 legs in (started by bm25-thread.ts): an index
// of its own on the same file, which only reads, each request in a read transaction of its own.
import { parentPort, workerData } from 'node:worker_threads';
import type { Bm25Reply, Bm25Request, Bm25ThreadMemory } from './bm25-thread.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const { path, splitMinChunks, memory } = workerData as {
  path: string;
  splitMinChunks: number;
  memory: Bm25ThreadMemory | false;
};
const index = new SqliteSearchIndex({
  path,
  bm25SplitMinChunks: splitMinChunks,
  checkpointWorker: null,
  bm25Worker: null,
  vectorCacheBytes: 0,
  bm25Memory: memory,
});

const reply = (message: Bm25Reply) => parentPort?.postMessage(message);

parentPort?.on('message', (message: { id: number; request: Bm25Request } | { close: true }) => {
  if ('close' in message) {
    // Saves the postings that changed (SqliteSearchIndex.close), then says so; the caller ends the thread.
    void index.close().finally(() => reply({ closed: true }));
    return;
  }
  const { id, request } = message;
  try {
    reply({ id, ids: index.bm25Ranks(request) });
  } catch (error) {
    reply({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
reply({ ready: true });
