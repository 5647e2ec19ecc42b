// The entry of the worker threads the offline models' heavy work runs in (started by `offline-pool.ts`): token counts
// and whole offline calls over large inputs, so that a big request never holds the api's event loop.
import { parentPort } from 'node:worker_threads';
import { runOfflineTask, type OfflineTask } from './offline-tasks.js';

parentPort?.on('message', ({ id, task }: { id: number; task: OfflineTask }) => {
  try {
    parentPort?.postMessage({ id, ok: true, result: runOfflineTask(task) });
  } catch (error) {
    parentPort?.postMessage({
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
