// A fresh temporary directory under this test run's root (TEST_TEMP_ROOT, made and removed by temp-root.js), else
// under the OS's temp dir (a suite run without jest's global set-up).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const tempDir = (prefix: string): string =>
  mkdtempSync(join(process.env.TEST_TEMP_ROOT ?? tmpdir(), prefix));
