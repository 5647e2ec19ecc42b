// The entry of the worker threads the offline models' heavy work runs in (started by `offline-pool.ts`): token counts
// and whole offline calls over large inputs, so that a big request never holds the api's event loop. Before its
// first task it imports the module that registered the offline chat model's responders in the starting thread
// (`workerData.setup`, see `offline-responder.ts`), so that it answers like that thread does.
import { parentPort, workerData } from 'node:worker_threads';
import { runOfflineTask, type OfflineTask } from './offline-tasks.js';

const setup = (workerData as { setup?: string } | null)?.setup;
const ready: Promise<unknown> = setup === undefined ? Promise.resolve() : import(setup);

const failure = (id: number, error: unknown) => ({
  id,
  ok: false,
  message: error instanceof Error ? error.message : String(error),
});

parentPort?.on('message', ({ id, task }: { id: number; task: OfflineTask }) => {
  ready.then(
    () => {
      try {
        parentPort?.postMessage({ id, ok: true, result: runOfflineTask(task) });
      } catch (error) {
        parentPort?.postMessage(failure(id, error));
      }
    },
    (error: unknown) => parentPort?.postMessage(failure(id, error)),
  );
});
