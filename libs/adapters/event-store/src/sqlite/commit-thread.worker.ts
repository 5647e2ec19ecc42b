// The thread the embedded event store commits its large batches in (started by commit-thread.ts): its own connection
// to the same file with the store's pragmas, one transaction per batch (event-commits.ts). Its COMMIT waits for the
// log's fsync here, while the api's event loop runs on. Told to close, it closes its connection before it ends.
import { parentPort, workerData } from 'node:worker_threads';
import { openPrivateDatabase } from '#kernel';
import type { CommitReply } from './commit-thread.js';
import { describeError, EventCommits, type EncodedAppend } from './event-commits.js';

const db = openPrivateDatabase((workerData as { path: string }).path);
db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
const commits = new EventCommits(db);

type Message = { id: number; batch: EncodedAppend[] } | { close: true };

parentPort?.on('message', (message: Message) => {
  if ('close' in message) {
    db.close();
    parentPort?.close();
    return;
  }
  let reply: CommitReply;
  try {
    const { outcomes, written } = commits.commit(message.batch);
    reply = {
      id: message.id,
      ok: true,
      outcomes: outcomes.map((outcome) =>
        'value' in outcome ? outcome : { described: describeError(outcome.error) },
      ),
      written,
    };
  } catch (error) {
    reply = { id: message.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
