// Start-up keeps V8's young generation small. V8 doubles the young generation (up to 2 × 64 MB on Node 24) whenever
// most of its objects survive a scavenge, and loading the api is exactly that: every module it parses, and every
// route, schema and projector it builds, lives on. The grown space stays resident until V8's memory reducer shrinks
// it some 10 s after the last full collection: an idle api held 128 MB of an empty young generation (RSS 246 MB;
// 124 MB once reduced; measured, README "Start-up and idle memory"). main.ts holds the growth off while the api
// loads and starts (those objects are promoted to the old generation, where they belong) and gives V8 its default
// back once the api is ready, so an api under load grows its young generation as before.
import { setFlagsFromString } from 'node:v8';

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
