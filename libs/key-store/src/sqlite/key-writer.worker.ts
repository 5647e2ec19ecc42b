// The thread a file-backed SqliteKeyStore creates its keys in (started by key-writer.ts): its own connection to the
// same file, one transaction per request. A commit of the rollback journal costs four fsyncs and an unlink (3 to 12
// ms on the bench machine, under 1 ms of it CPU); here the api's event loop runs on (a turn's retrieval) meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import { insertKeys, openKeyDatabase, prepareInsert, type NewKeyRow } from './key-database.js';

const db = openKeyDatabase((workerData as { path: string }).path);
const insert = prepareInsert(db);

parentPort?.on('message', ({ id, rows, now }: { id: number; rows: NewKeyRow[]; now: number }) => {
  try {
    insertKeys(db, insert, rows, now);
    parentPort?.postMessage({ id, ok: true });
  } catch (error) {
    parentPort?.postMessage({
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
