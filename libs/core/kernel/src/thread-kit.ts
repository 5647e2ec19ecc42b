// What the code a worker thread runs takes from the kernel (the thread protocol, private files and databases, the WAL
// helpers, the errors it refuses with), without the kernel's index: importing the index loads its whole module graph (the
// configuration's schemas, ids, tracing) into the thread: measured, 12–13 MB more of the api's resident memory for
// each such thread, and a process's first conversation turn (which starts the key store's writer thread and waits for
// it) 40–50 ms slower. The same modules the index exports: main-thread code importing this gets the same classes.
export { answerRequests } from './threads/answer-requests.js';
export { makePrivateDir, openPrivateDatabase, PRIVATE_FILE_MODE } from './private-files.js';
export { checkpointInThread } from './sqlite/wal-checkpoints.js';
export { truncateWal } from './sqlite/wal-truncate.js';
export {
  ConflictError,
  IdempotencyMismatchError,
  NotFoundError,
  ValidationError,
  WrongExpectedRevisionError,
} from './errors.js';
