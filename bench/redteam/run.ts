// `npm run redteam`: the hardening issue's red-team rerun against the api started as `npm start` starts it (built
// main.js, embedded stores, a fresh DATA_DIR per scenario, 127.0.0.1 only). Prints figures; asserts nothing (the
// regression tests in `npm test` do). REDTEAM_ONLY=documents,long,cjk,stalled,kill,fuzz runs a subset.
import { makeTempDir } from '../util.js';
import { log } from './harness.js';
import { fuzz } from './fuzz.js';
import { hostileDocuments } from './hostile-documents.js';
import { killLoop } from './kill-loop.js';
import { cjkRace, longMessages, stalledStreams } from './requests.js';

const scenarios: Record<string, (dataDir: string) => Promise<void>> = {
  documents: hostileDocuments,
  long: longMessages,
  cjk: (dir) => cjkRace(dir),
  stalled: (dir) => stalledStreams(dir),
  kill: (dir) => killLoop(dir),
  fuzz: (dir) => fuzz(dir),
};
const only = (process.env.REDTEAM_ONLY ?? Object.keys(scenarios).join(','))
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);

for (const name of only) {
  const scenario = scenarios[name];
  if (!scenario) throw new Error(`unknown scenario ${name}: one of ${Object.keys(scenarios).join(', ')}`);
  const dir = makeTempDir(`redteam-${name}`);
  log(`scenario ${name} in ${dir.path}`);
  try {
    await scenario(dir.path);
  } finally {
    dir.remove();
  }
}
