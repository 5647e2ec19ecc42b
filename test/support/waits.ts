// Waits on the thing a test needs to have happened, polled with a bound, instead of a fixed sleep.
import { client } from './api.js';

/**
 * Resolves once every projection of the api at `url` has applied the whole log (its /health shows no lag): what the
 * read models will hold of the writes so far is written. Throws after `timeoutMs`.
 */
export async function projectionsCaughtUp(url: string, timeoutMs = 15_000): Promise<void> {
  const anonymous = client(url, null);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = await anonymous.get<{ projections?: { lagEvents: number }[] }>('/health');
    const projections = health.body.projections ?? [];
    if (projections.length > 0 && projections.every((projection) => projection.lagEvents === 0)) return;
    if (Date.now() > deadline) throw new Error(`the projections did not catch up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
