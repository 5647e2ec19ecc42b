// The Node flags the api runs with, read from where they are set: the `start` script of package.json (`node <flags>
// dist/apps/api/src/main.js`). The benchmarks, the red-team rerun and the tests that spawn the built api start it with
// these, so what they measure is what `npm start` runs; docker/Dockerfile's CMD carries the same flags (checked by
// test/startup-memory.e2e.spec.ts). V8's heap sizes are fixed when the process starts: they cannot be set from
// main.ts (v8.setFlagsFromString changes nothing once the heap exists).
import { platformPackage } from '../apps/api/src/version.js';

/** The flags between `node` and the api's entry point in package.json's `start` script, e.g. `['--max-semi-space-size=16']`. */
export function apiNodeFlags(): string[] {
  const start = platformPackage().scripts.start ?? '';
  const match = /\bnode((?: --\S+)*) dist\/apps\/api\/src\/main\.js/.exec(start);
  if (!match) throw new Error(`package.json's start script does not run dist/apps/api/src/main.js: ${start}`);
  return match[1]!.split(' ').filter(Boolean);
}
