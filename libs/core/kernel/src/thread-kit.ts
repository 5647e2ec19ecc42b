// What the code worker threads run takes from the kernel (the thread protocol, private files and databases, the WAL
// helpers, hashing and fencing, the errors it refuses with), without the kernel's index: importing the index loads its
// whole module graph (the configuration's schemas, ids, tracing) into each thread that does, measured at 12–13 MB more
// of the api's resident memory per thread, and a process's first conversation turn (which starts the key store's
// writer thread and waits for it) 40–50 ms slower. The same modules the index exports: main-thread code importing this
// gets the same classes. `.dependency-cruiser-threads.cjs` checks that no thread's graph reaches an index.
export { answerRequests } from './threads/answer-requests.js';
export { sha256 } from './ids.js';
export { fenced } from './markdown-fence.js';
export { makePrivateDir, openPrivateDatabase, PRIVATE_FILE_MODE } from './private-files.js';
export { checkpointInThread } from './sqlite/wal-checkpoints.js';
export { truncateWal } from './sqlite/wal-truncate.js';
export { execOpening } from './sqlite/opening-statements.js';
export {
  ConflictError,
  IdempotencyMismatchError,
  NotFoundError,
  ValidationError,
  WrongExpectedRevisionError,
} from './errors.js';
