// `npm run build` (and so `npm start`, `npm test`, `npm run bench`): builds only what changed since the last build.
// Four steps, each run when a file it reads changed (its path, size or modification time: a file added, edited or
// deleted) or what it writes is missing: the api, worker and CLI (tsc, incremental), the api's bundle (rolldown over
// tsc's output, so it runs whenever tsc did), the bridge SDK (tsc) and the web app (vite). Checking costs a few tens of
// milliseconds of `stat` calls where running tsc on an unchanged tree costs seconds. `--force` (or BUILD_FORCE=1) runs
// every step. The fingerprints are kept in dist/.build-inputs.json, written after each step succeeds, so a failed or
// interrupted step runs again next time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const stampPath = join(root, 'dist/.build-inputs.json');
const force = process.argv.includes('--force') || process.env.BUILD_FORCE === '1';
const bin = (name) => join(root, 'node_modules/.bin', name);

/** Folders no step reads: dependencies, build outputs, data. */
const SKIPPED = new Set(['node_modules', 'dist', 'data', '.git', 'coverage']);

/** Every file under `dir` (relative to the root), skipping SKIPPED folders at any depth. */
function filesUnder(dir, exclude = []) {
  const found = [];
  const walk = (folder) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return; // absent: its absence is part of the fingerprint (no files)
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const rel = relative(root, path);
      if (exclude.some((prefix) => rel === prefix || rel.startsWith(`${prefix}/`))) continue;
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) walk(path);
      } else if (entry.isFile()) found.push(rel);
    }
  };
  walk(join(root, dir));
  return found;
}

/** One hash of the paths, sizes and modification times of a step's inputs. */
function fingerprint(paths) {
  const hash = createHash('sha256');
  for (const path of [...paths].sort()) {
    let line = `${path}\0-\n`;
    try {
      const stat = statSync(join(root, path));
      line = `${path}\0${stat.size}\0${stat.mtimeMs}\n`;
    } catch {
      // a listed file that is absent (an optional config) hashes as absent
    }
    hash.update(line);
  }
  return hash.digest('hex');
}

/** Installed dependencies: npm rewrites this file on every install that changes node_modules. */
const DEPENDENCIES = ['package.json', 'package-lock.json', 'node_modules/.package-lock.json'];

const STEPS = [
  {
    name: 'api (tsc)',
    inputs: () => [
      ...['apps', 'libs', 'projections', 'bench', 'scripts'].flatMap((dir) =>
        filesUnder(dir, ['apps/web', 'libs/bridge-sdk']),
      ),
      'tsconfig.json',
      'tsconfig.build.json',
      ...DEPENDENCIES,
    ],
    outputs: ['dist/apps/api/src/main.js', 'dist/apps/worker/src/main.js', 'dist/apps/cli/src/main.js'],
    // tsc's record of what it emitted: an incremental tsc does not write again a file it wrote before, even when the
    // file is gone, so a forced build or a missing output starts without it.
    emitRecord: 'dist/.tsbuildinfo',
    run: [bin('tsc'), '-p', 'tsconfig.build.json'],
  },
  {
    name: 'api bundle (rolldown)',
    after: 'api (tsc)',
    inputs: () => ['apps/api/bundle.js', 'apps/api/bundled-packages.json', ...DEPENDENCIES],
    outputs: ['dist/apps/api/bundle'],
    run: [process.execPath, 'apps/api/bundle.js'],
  },
  {
    name: 'bridge SDK (tsc)',
    inputs: () => [...filesUnder('libs/bridge-sdk'), ...DEPENDENCIES],
    outputs: ['libs/bridge-sdk/dist/index.js'],
    run: [bin('tsc'), '-p', 'libs/bridge-sdk/tsconfig.json'],
  },
  {
    name: 'web app (vite)',
    inputs: () => [...filesUnder('apps/web'), ...DEPENDENCIES],
    outputs: ['dist/web/index.html'],
    run: [bin('vite'), 'build', '--config', 'apps/web/vite.config.ts', '--logLevel', 'warn'],
  },
];

function readStamps() {
  try {
    return JSON.parse(readFileSync(stampPath, 'utf8'));
  } catch {
    return {};
  }
}

function writeStamps(stamps) {
  mkdirSync(dirname(stampPath), { recursive: true });
  writeFileSync(stampPath, `${JSON.stringify(stamps, null, 2)}\n`);
}

function main() {
  const stamps = readStamps();
  const ran = new Set();
  for (const step of STEPS) {
    const print = fingerprint(step.inputs());
    const missing = step.outputs.some((path) => !existsSync(join(root, path)));
    const upstreamRan = step.after !== undefined && ran.has(step.after);
    if (!force && !missing && !upstreamRan && stamps[step.name] === print) continue;
    const started = performance.now();
    if (step.emitRecord && (force || missing)) rmSync(join(root, step.emitRecord), { force: true });
    const [command, ...args] = step.run;
    const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
      delete stamps[step.name];
      writeStamps(stamps);
      console.error(`build: ${step.name} failed`);
      process.exit(result.status ?? 1);
    }
    // The fingerprint taken before the step: a file edited while it ran is built next time.
    stamps[step.name] = print;
    writeStamps(stamps);
    ran.add(step.name);
    console.log(`build: ${step.name} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  if (ran.size === 0) console.log('build: up to date');
}

main();
