// Preloaded (`node --import`) into the api the benchmarks spawn: the bench holds the child's stdin pipe, so when the
// bench process goes away however it ended (SIGKILL included) the pipe closes and the child gets SIGTERM, the api's
// ordinary shutdown. No api outlives its benchmark. Preloads run in worker threads too, whose stdin is an empty stream
// that closes at once: only the main thread watches the pipe.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  process.stdin.once('close', () => process.kill(process.pid, 'SIGTERM'));
  process.stdin.resume();
}
