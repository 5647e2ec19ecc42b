// The thread a file-backed SqliteKeyStore creates its keys in (started by key-writer.ts): its own connection to the
// same file, one transaction per request. A commit waits for an fsync of the log (about 1 ms on the bench machine,
// little of it CPU); here the api's event loop runs on (a turn's retrieval) meanwhile. Told to close, it closes its
// connection before it ends, so the last connection to close removes the log.
import { workerData } from 'node:worker_threads';
import { answerRequests } from '#kernel/thread-kit';
import { insertKeys, openKeyDatabase, prepareInsert } from './key-database.js';
import type { KeyWrite } from './key-writer.js';

const db = openKeyDatabase((workerData as { path: string }).path);
const insert = prepareInsert(db);

answerRequests(
  ({ rows, now }: KeyWrite) => insertKeys(db, insert, rows, now),
  () => db.close(),
);
