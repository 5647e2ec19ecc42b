// A cgroup per sandbox run: memory (tmpfs pages included, no swap) and processes counted for the sandbox as a whole,
// not per process. Works on cgroup v2 (a sub-group with memory.max, memory.swap.max=0, pids.max) or cgroup v1 (the
// memory and pids hierarchies: memory.limit_in_bytes, memory.memsw.limit_in_bytes when present, pids.max), whichever
// this host has usable; the groups are made under the cgroup this process is in (so they stay inside any limit set
// on the platform itself). Without either, `detectCgroups` says why and code execution is unavailable.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const PARENT = 'agent-platform-sandboxes';

export interface CgroupLimits {
  readonly memoryBytes: number;
  readonly maxProcesses: number;
}

export interface SandboxCgroup {
  /** The `cgroup.procs` files a process writes its pid to, to enter the group (one per hierarchy). */
  readonly procsFiles: readonly string[];
  /** How many processes the kernel's OOM killer ended in this group (the memory limit was reached). */
  oomKills(): Promise<number>;
  /** Kills every process still in the group, then removes it (retrying while the processes exit). */
  remove(): Promise<void>;
}

export interface Cgroups {
  readonly version: 'v1' | 'v2';
  create(name: string, limits: CgroupLimits): Promise<SandboxCgroup>;
}

interface Mount {
  readonly root: string;
  readonly point: string;
  readonly type: string;
  readonly options: string[];
}

const unescape = (path: string): string =>
  path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

async function mounts(): Promise<Mount[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [left, right = ''] = line.split(' - ');
      const fields = left!.split(' ');
      const [type = '', , superOptions = ''] = right.split(' ');
      return {
        root: unescape(fields[3] ?? '/'),
        point: unescape(fields[4] ?? ''),
        type,
        options: superOptions.split(','),
      };
    });
}

/** This process's cgroup per hierarchy: `''` keys the v2 path, controller names the v1 paths. */
async function ownCgroups(): Promise<Map<string, string>> {
  const own = new Map<string, string>();
  for (const line of (await readFile('/proc/self/cgroup', 'utf8')).split('\n').filter(Boolean)) {
    const [, controllers = '', ...rest] = line.split(':');
    const path = rest.join(':');
    if (controllers === '') own.set('', path);
    for (const name of controllers.split(',')) if (name) own.set(name, path);
  }
  return own;
}

/** The directory of `cgroupPath` under a mount whose root may itself be a sub-path (in a container). */
const dirOf = (mount: Mount, cgroupPath: string): string => {
  const relative =
    mount.root !== '/' && cgroupPath.startsWith(mount.root)
      ? cgroupPath.slice(mount.root.length)
      : cgroupPath;
  return join(mount.point, relative);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function killAndRemove(dir: string, killFile: string | null): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (!existsSync(dir)) return;
    if (killFile) await writeFile(join(dir, killFile), '1').catch(() => undefined);
    const procs = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
    for (const pid of procs.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      await sleep(20 + attempt * 10);
    }
  }
}

const counter = async (file: string, key: string): Promise<number> => {
  const text = await readFile(file, 'utf8').catch(() => '');
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
};

class CgroupsV2 implements Cgroups {
  readonly version = 'v2' as const;
  constructor(private readonly parent: string) {}

  async create(name: string, limits: CgroupLimits): Promise<SandboxCgroup> {
    const dir = join(this.parent, name);
    await killAndRemove(dir, 'cgroup.kill');
    await mkdir(dir);
    await writeFile(join(dir, 'memory.max'), String(limits.memoryBytes));
    if (existsSync(join(dir, 'memory.swap.max'))) await writeFile(join(dir, 'memory.swap.max'), '0');
    await writeFile(join(dir, 'pids.max'), String(limits.maxProcesses));
    return {
      procsFiles: [join(dir, 'cgroup.procs')],
      oomKills: () => counter(join(dir, 'memory.events'), 'oom_kill'),
      remove: () => killAndRemove(dir, 'cgroup.kill'),
    };
  }
}

class CgroupsV1 implements Cgroups {
  readonly version = 'v1' as const;
  constructor(
    private readonly memoryParent: string,
    private readonly pidsParent: string,
  ) {}

  async create(name: string, limits: CgroupLimits): Promise<SandboxCgroup> {
    const memory = join(this.memoryParent, name);
    const pids = join(this.pidsParent, name);
    await Promise.all([killAndRemove(memory, null), killAndRemove(pids, null)]);
    await mkdir(memory);
    await mkdir(pids);
    const group: SandboxCgroup = {
      procsFiles: [join(memory, 'cgroup.procs'), join(pids, 'cgroup.procs')],
      oomKills: () => counter(join(memory, 'memory.oom_control'), 'oom_kill'),
      remove: async () => {
        await killAndRemove(pids, null);
        await killAndRemove(memory, null);
      },
    };
    try {
      await writeFile(join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      // With swap accounting, memory + swap is capped too (nothing goes to swap past the limit).
      if (existsSync(join(memory, 'memory.memsw.limit_in_bytes')))
        await writeFile(join(memory, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
      await writeFile(join(pids, 'pids.max'), String(limits.maxProcesses));
    } catch (error) {
      await group.remove();
      throw error;
    }
    return group;
  }
}

/**
 * Enables memory and pids for the children of `base`. A group with processes cannot (EBUSY, the "no internal
 * processes" rule, except at the real root): then this process moves into a leaf of its own (`<base>/platform`,
 * still under the same limits) and it is tried again; other processes left in `base` make it fail with the reason.
 */
async function handDown(base: string): Promise<void> {
  const enable = () => writeFile(join(base, 'cgroup.subtree_control'), '+memory +pids');
  try {
    await enable();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw error;
    const leaf = join(base, 'platform');
    await mkdir(leaf, { recursive: true });
    await writeFile(join(leaf, 'cgroup.procs'), String(process.pid));
    await enable();
  }
}

async function tryV2(all: Mount[], own: Map<string, string>): Promise<Cgroups | string> {
  const mount = all.find((m) => m.type === 'cgroup2');
  const path = own.get('');
  if (!mount || path === undefined) return 'no cgroup v2 hierarchy';
  const base = dirOf(mount, path);
  const available = (await readFile(join(base, 'cgroup.controllers'), 'utf8').catch(() => '')).split(/\s+/);
  if (!available.includes('memory') || !available.includes('pids'))
    return `cgroup v2 at ${mount.point} has no memory and pids controllers for this process`;
  const parent = join(base, PARENT);
  try {
    await handDown(base);
    await mkdir(parent, { recursive: true });
    await writeFile(join(parent, 'cgroup.subtree_control'), '+memory +pids');
  } catch (error) {
    return `cannot delegate memory and pids under ${base}: ${(error as Error).message}`;
  }
  return new CgroupsV2(parent);
}

async function tryV1(all: Mount[], own: Map<string, string>): Promise<Cgroups | string> {
  const memory = all.find((m) => m.type === 'cgroup' && m.options.includes('memory'));
  const pids = all.find((m) => m.type === 'cgroup' && m.options.includes('pids'));
  if (!memory || !pids) return 'no cgroup v1 memory and pids hierarchies';
  const memoryParent = join(dirOf(memory, own.get('memory') ?? '/'), PARENT);
  const pidsParent = join(dirOf(pids, own.get('pids') ?? '/'), PARENT);
  try {
    await mkdir(memoryParent, { recursive: true });
    await mkdir(pidsParent, { recursive: true });
  } catch (error) {
    return `cannot make cgroup v1 groups: ${(error as Error).message}`;
  }
  return new CgroupsV1(memoryParent, pidsParent);
}

/**
 * The cgroups this host lets the platform use for sandboxes (v2 preferred, else v1), checked by making and removing
 * a group with limits; or why none can be used.
 */
export async function detectCgroups(): Promise<Cgroups | { readonly reason: string }> {
  let all: Mount[];
  let own: Map<string, string>;
  try {
    [all, own] = await Promise.all([mounts(), ownCgroups()]);
  } catch (error) {
    return { reason: `cannot read this process's cgroups: ${(error as Error).message}` };
  }
  const reasons: string[] = [];
  for (const attempt of [tryV2, tryV1]) {
    const found = await attempt(all, own);
    if (typeof found === 'string') {
      reasons.push(found);
      continue;
    }
    try {
      const probe = await found.create(`probe-${process.pid}`, {
        memoryBytes: 64 * 1024 * 1024,
        maxProcesses: 8,
      });
      await probe.remove();
      return found;
    } catch (error) {
      reasons.push(`cgroup ${found.version} limits cannot be set: ${(error as Error).message}`);
    }
  }
  return { reason: `no usable cgroup for sandbox memory and process limits (${reasons.join('; ')})` };
}
