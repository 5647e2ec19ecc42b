// What a worker thread's entry module takes from the kernel (the thread protocol, a private database, the errors an
// append is refused with), without the kernel's index: importing the index loads its whole module graph (the
// configuration's schemas, ids, tracing) into the thread: measured, 12–13 MB more of the api's resident memory for
// each such thread, and a process's first conversation turn (which starts the key store's writer thread and waits for
// it) 40–50 ms slower. The same modules the index exports: main-thread code importing this gets the same classes.
export { answerRequests } from './threads/answer-requests.js';
export { openPrivateDatabase } from './private-files.js';
export { IdempotencyMismatchError, WrongExpectedRevisionError } from './errors.js';
