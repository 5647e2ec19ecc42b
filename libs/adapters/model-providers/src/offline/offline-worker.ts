// The entry of the worker threads the offline models' heavy work runs in (started by `offline-pool.ts`): token counts
// and whole offline calls over large inputs, and other contexts' pure functions handed over with `runPooled`
// (compaction plans, history token counts), so that a big request never holds the api's event loop. Before its
// first task it imports the module that registered the offline chat model's responders in the starting thread
// (`workerData.setup`, see `offline-responder.ts`), so that it answers like that thread does.
import { parentPort, workerData } from 'node:worker_threads';
import { runOfflineTask, type OfflineTask, type PooledCall } from './offline-tasks.js';

const setup = (workerData as { setup?: string } | null)?.setup;
const ready: Promise<unknown> = setup === undefined ? Promise.resolve() : import(setup);

/** Modules a pooled call loaded, by URL: each is imported once per worker. */
const modules = new Map<string, Promise<Record<string, unknown>>>();

const call = async (task: PooledCall): Promise<unknown> => {
  let loading = modules.get(task.module);
  if (!loading) {
    loading = import(task.module) as Promise<Record<string, unknown>>;
    modules.set(task.module, loading);
  }
  const fn = (await loading)[task.name];
  if (typeof fn !== 'function') throw new Error(`${task.module} exports no function '${task.name}'`);
  return (fn as (...args: readonly unknown[]) => unknown)(...task.args);
};

parentPort?.on('message', ({ id, task }: { id: number; task: OfflineTask | PooledCall }) => {
  const reply = (result: Promise<unknown>) =>
    result.then(
      (value) => parentPort?.postMessage({ id, ok: true, result: value }),
      (error: unknown) =>
        parentPort?.postMessage({
          id,
          ok: false,
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  void reply(ready.then(() => (task.op === 'call' ? call(task) : runOfflineTask(task))));
});
