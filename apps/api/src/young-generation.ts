// Start-up keeps V8's young generation small. V8 doubles the young generation (up to 2 × 64 MB on Node 24) whenever
// most of its objects survive a scavenge, and loading the api is exactly that: every module it parses, and every
// route, schema and projector it builds, lives on. The grown space stays resident until V8's memory reducer shrinks
// it some 10 s after the last full collection: an idle api held 128 MB of an empty young generation (RSS 246 MB;
// 124 MB once reduced; measured, README "Start-up and idle memory"). main.ts holds the growth off while the api
// loads and starts (those objects are promoted to the old generation, where they belong) and gives V8 its default
// back once the api is ready, so an api under load grows its young generation as before.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's default `--semi-space-growth-factor` (`node --v8-options`). */
const DEFAULT_GROWTH_FACTOR = 2;

/** Before the api's modules are imported: the young generation keeps its initial size. */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** Once ready: the young generation grows under load as V8 decides by default. */
export function releaseYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}

/** How long after ready the start-up garbage is collected: the start's own follow-up work (projections catching up
 * on seeded events, process managers, the Skills seeder) has settled on a fresh start by then. */
export const STARTUP_GARBAGE_DELAY_MS = 1000;

/**
 * Once, shortly after ready: one full collection that gives the old generation's start-up garbage back to the OS.
 * Loading leaves some 30 MB of dead objects (module parsing, route and schema building) in the old generation, and
 * V8's memory reducer frees it only after some 15–20 s of idling (idle RSS 185 MB at ready + 2 s, 147 MB after the
 * reducer, measured). The collection is a single pause of a few tens of milliseconds, on a timer that does not keep
 * the process alive. `gc` is taken from a fresh context after `--expose-gc` (the way jest's leak detector does it),
 * so the api's own global scope never gets a `gc`.
 */
export function collectStartupGarbage(delayMs = STARTUP_GARBAGE_DELAY_MS): void {
  setTimeout(() => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options: { type: string; flavor: string }) => void;
    gc({ type: 'major', flavor: 'last-resort' });
  }, delayMs).unref();
}
