// The Node flags the api runs with, read from where they are set: the `start` script of package.json (`node <flags>
// dist/apps/api/src/main.js`). The benchmarks, the red-team rerun and the tests that spawn the built api start it with
// these, so what they measure is what `npm start` runs; docker/Dockerfile's CMD carries the same flags (checked by
// test/startup-memory.e2e.spec.ts). V8's heap sizes are fixed when the process starts: they cannot be set from
// main.ts (v8.setFlagsFromString changes nothing once the heap exists).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's package.json: the first one up from this module that is ours (bench/ in the sources, dist/bench/ built). */
function packageJsonPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (
      existsSync(candidate) &&
      (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'agent-platform'
    )
      return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of agent-platform not found above bench/');
    dir = parent;
  }
}

/** The flags between `node` and the api's entry point in package.json's `start` script, e.g. `['--max-semi-space-size=16']`. */
export function apiNodeFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(packageJsonPath(), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const match = /\bnode((?: --\S+)*) dist\/apps\/api\/src\/main\.js/.exec(scripts.start ?? '');
  if (!match)
    throw new Error(`package.json's start script does not run dist/apps/api/src/main.js: ${scripts.start}`);
  return match[1]!.split(' ').filter(Boolean);
}
