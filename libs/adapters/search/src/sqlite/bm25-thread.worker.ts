// The thread a file-backed SqliteSearchIndex ranks large indexes' BM25 legs in (started by bm25-thread.ts): an index
// of its own on the same file, which only reads, each request in a read transaction of its own.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { Bm25Answer, Bm25Reply, Bm25Request, Bm25ThreadMemory } from './bm25-thread.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const { path, splitMinChunks, memory, answers } = workerData as {
  path: string;
  splitMinChunks: number;
  memory: Bm25ThreadMemory | false;
  /** Where requests are answered (a port of their own: Bm25Thread.settleArrived). */
  answers: MessagePort;
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
const answer = (message: Bm25Answer) => answers.postMessage(message);

parentPort?.on('message', (message: { id: number; request: Bm25Request } | { close: true }) => {
  if ('close' in message) {
    // Saves the postings that changed (SqliteSearchIndex.close), then says so; the caller ends the thread.
    void index.close().finally(() => reply({ closed: true }));
    return;
  }
  const { id, request } = message;
  try {
    answer({ id, ids: index.bm25Ranks(request) });
  } catch (error) {
    answer({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
reply({ ready: true });
