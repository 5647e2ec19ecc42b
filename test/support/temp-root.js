// Jest's global set-up and tear-down of the test run's temporary directory: every DATA_DIR and models file a test
// makes with test/support/api.ts `tempDataDir` lives under one directory of this run (TEST_TEMP_ROOT, set here before
// the workers start, so they inherit it), and the directory goes when the run ends, after every worker, and so every
// api a test started, has exited. Before, each full run left some 130 `agent-platform-*` directories in the temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function setup() {
  process.env.TEST_TEMP_ROOT = mkdtempSync(join(tmpdir(), 'agent-platform-test-run-'));
}

export function teardown() {
  const root = process.env.TEST_TEMP_ROOT;
  if (root) rmSync(root, { recursive: true, force: true });
}
