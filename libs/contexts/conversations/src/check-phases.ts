// A model request is written to a reused connection in a check phase (undici schedules it with setImmediate): work
// that must not go ahead of that write waits for the check phases after it.

/**
 * Settles once `after` has (fulfilled or not) and the event loop has then passed two check phases: what was scheduled
 * with setImmediate as `after` settled (a model request's write to a reused connection) runs first.
 */
export async function afterNextCheckPhase(after: Promise<unknown> = Promise.resolve()): Promise<void> {
  await after.catch(() => undefined);
  for (let hop = 0; hop < 2; hop++) await new Promise<void>((resolve) => setImmediate(resolve));
}
