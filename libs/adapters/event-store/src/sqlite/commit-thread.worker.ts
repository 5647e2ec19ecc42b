// The thread the embedded event store commits its large batches in (started by commit-thread.ts): its own connection
// to the same file with the store's pragmas, one transaction per batch (event-commits.ts). Its COMMIT waits for the
// log's fsync here, while the api's event loop runs on. Told to close, it closes its connection before it ends.
import { workerData } from 'node:worker_threads';
import { answerRequests, execOpening, openPrivateDatabase } from '#kernel/thread-kit';
import type { CommitReply } from './commit-thread.js';
import { describeError, EventCommits, type EncodedAppend } from './event-commits.js';

const db = openPrivateDatabase((workerData as { path: string }).path);
execOpening(db, 'PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
const commits = new EventCommits(db);

answerRequests(
  (batch: EncodedAppend[]): CommitReply => {
    const { outcomes, written } = commits.commit(batch);
    return {
      outcomes: outcomes.map((outcome) =>
        'value' in outcome ? outcome : { described: describeError(outcome.error) },
      ),
      written,
    };
  },
  () => db.close(),
);
