// The thread a file-backed SqliteKeyStore creates its keys in (started by key-writer.ts): its own connection to the
// same file, one transaction per request. A commit waits for an fsync of the log (about 1 ms on the bench machine,
// little of it CPU); here the api's event loop runs on (a turn's retrieval) meanwhile. Told to close, it closes its
// connection before it ends, so the last connection to close removes the log.
import { parentPort, workerData } from 'node:worker_threads';
import { insertKeys, openKeyDatabase, prepareInsert, type NewKeyRow } from './key-database.js';

const db = openKeyDatabase((workerData as { path: string }).path);
const insert = prepareInsert(db);

type Message = { id: number; rows: NewKeyRow[]; now: number } | { close: true };

parentPort?.on('message', (message: Message) => {
  if ('close' in message) {
    db.close();
    parentPort?.close();
    return;
  }
  const { id, rows, now } = message;
  try {
    const existing = insertKeys(db, insert, rows, now);
    parentPort?.postMessage({ id, ok: true, existing });
  } catch (error) {
    parentPort?.postMessage({
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
