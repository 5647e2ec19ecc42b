// Whether bubblewrap runs code on this machine, asked once by a suite that needs it (the suite skips aloud where it
// cannot): a probe sandbox with the smallest limits, in a directory of its own (the probe makes its root 0711, which
// would take /tmp's sticky, world-writable mode away), removed after.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BubblewrapSandbox } from '#sandbox/bubblewrap/bubblewrap-sandbox';

export async function sandboxAvailability(suite: string): Promise<boolean> {
  const root = await mkdtemp(join(tmpdir(), 'sandbox-probe-'));
  const availability = await new BubblewrapSandbox({
    root,
    limits: {
      cpuSeconds: 1,
      memoryMb: 128,
      diskMb: 1,
      maxProcesses: 8,
      maxFileMb: 1,
      outputBytes: 1024,
      wallTimeoutMs: 1000,
      idleTimeoutMs: 1000,
    },
  }).availability();
  await rm(root, { recursive: true, force: true });
  if (!availability.available) console.log(`SKIP ${suite}: ${availability.reason}`);
  return availability.available;
}
