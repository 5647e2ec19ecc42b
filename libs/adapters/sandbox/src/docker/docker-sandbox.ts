// The production code sandbox: one container per sandbox, driven through the Docker Engine API (HTTP over the unix
// socket, or a `tcp://`/`http(s)://` endpoint). The container is `sandbox-<id>`, labelled `agent-platform.sandbox`,
// and sleeps; each run is an exec in it. Over 300 lines on purpose: the isolation settings, the run's limits and the
// refusals of one engine stay readable together (the Engine client and the tar reader are files of their own).
//
// Isolation: no network (NetworkMode none), a read-only root file system, every capability dropped, no new privileges,
// the user nobody (65534), an environment of PATH, HOME and LANG only (each exec starts under `env -i`), a cgroup of
// `memoryMb` (no swap) and one CPU, `maxProcesses` pids, and per-process limits (CPU seconds, file size, open files).
// /work is a tmpfs of `diskMb` (owned by nobody, 0700): the disk quota is the tmpfs's size. /tmp is a tmpfs too.
// /skills is an anonymous volume (root-owned, 0755; the files 0444, root's): the Engine refuses to extract an archive
// into a read-only root file system or a tmpfs, but not into a volume, and `DELETE …?v=true` removes it with the
// container.
//
// Runs of one sandbox go one at a time; after each, `kill -9 -1` as nobody ends whatever it left in the background
// (the sleeping init, pid 1, is immune). The same kill ends a run at the wall timeout, at the output cap, or when
// the caller aborts: the Engine has no call to kill an exec. `timeout -s KILL` in front of the interpreter is the
// backstop should the adapter lose the connection.
// Over 300 lines on purpose: the Engine's HTTP transport and exec stream are DockerEngineClient's
// (docker-engine-client.ts) and tars are tar-stream's (tar.ts); what is left is the sandbox policy (container
// settings, limits, kill paths), kept in one file so its limits and kill paths cannot drift apart.
import { NotFoundError, ValidationError } from '#kernel';
import {
  type CodeSandbox,
  type ListedSandboxFile,
  type RunRequest,
  type RunResult,
  type SandboxAvailability,
  type SandboxFile,
  type SandboxLimits,
  SandboxUnavailableError,
} from '../sandbox.port.js';
import { assertRunRequest, assertSandboxId, safeSegments, SandboxSessions } from '../sandbox-sessions.js';
import {
  DockerApiError,
  DockerEngineClient,
  type EngineAnswer,
  type ExecOutput,
} from './docker-engine-client.js';
import { readTar, type TarInput, TarLimitError, writeTar } from './tar.js';

export interface DockerSandboxOptions {
  /** `unix:///var/run/docker.sock`, `tcp://host:2375` or `http(s)://host:port`. */
  readonly endpoint: string;
  /** The image every sandbox runs, with python3, sh and coreutils' `timeout`, e.g. `python:3.12-slim`. */
  readonly image: string;
  readonly limits: SandboxLimits;
}

const MB = 1024 * 1024;
const NOBODY = '65534:65534';
const OPEN_FILES = 256;
/** Entries (files and folders) read back from /work's archive at most. */
const WORK_MAX_ENTRIES = 100_000;
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';
const SANDBOX_ENV = [`PATH=${SANDBOX_PATH}`, 'HOME=/work', 'LANG=C.UTF-8'];
const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  4: 'SIGILL',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  14: 'SIGALRM',
  15: 'SIGTERM',
  24: 'SIGXCPU',
  25: 'SIGXFSZ',
};

/** The skill files as a tar for /skills: their directories 0755, the files 0444, all root's. */
function skillsArchive(files: readonly SandboxFile[]): Promise<Uint8Array> {
  const entries: TarInput[] = [];
  const dirs = new Set<string>();
  const seen = new Set<string>();
  for (const file of files) {
    const segments = safeSegments(file.path);
    if (!segments)
      throw new ValidationError('invalid_sandbox_path', `Not a relative path: ${file.path}`, 'path');
    if (seen.has(file.path) || dirs.has(file.path))
      throw new ValidationError('duplicate_sandbox_path', `Two files at ${file.path}`, 'path');
    seen.add(file.path);
    for (let i = 1; i < segments.length; i += 1) {
      const dir = segments.slice(0, i).join('/');
      if (seen.has(dir)) throw new ValidationError('duplicate_sandbox_path', `Two files at ${dir}`, 'path');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      entries.push({ path: dir, type: 'directory', mode: 0o755 });
    }
    entries.push({ path: file.path, type: 'file', mode: 0o444, bytes: file.bytes });
  }
  return writeTar(entries);
}

export class DockerSandbox implements CodeSandbox {
  private readonly engine: DockerEngineClient;
  private readonly image: string;
  private readonly limits: SandboxLimits;
  private probed: Promise<SandboxAvailability> | undefined;
  private readonly sessions: SandboxSessions;

  constructor(options: DockerSandboxOptions) {
    this.engine = new DockerEngineClient(options.endpoint);
    this.image = options.image;
    this.limits = options.limits;
    this.sessions = new SandboxSessions(options.limits.idleTimeoutMs);
  }

  /** Closes the connections to the Engine (the containers stay). */
  async close(): Promise<void> {
    await this.engine.close();
  }

  availability(): Promise<SandboxAvailability> {
    this.probed ??= this.probe();
    return this.probed;
  }

  idleSandboxes(now = Date.now()): string[] {
    return this.sessions.idle(now);
  }

  async create(sandboxId: string, files: readonly SandboxFile[]): Promise<void> {
    assertSandboxId(sandboxId);
    const archive = await skillsArchive(files);
    await this.requireAvailable();
    await this.destroy(sandboxId);
    const name = this.nameOf(sandboxId);
    const limits = this.limits;
    await this.engine.call(
      'POST',
      `/containers/create?name=${name}`,
      {
        Image: this.image,
        Cmd: ['sleep', 'infinity'],
        WorkingDir: '/work',
        User: NOBODY,
        Env: SANDBOX_ENV,
        NetworkDisabled: true,
        Labels: { 'agent-platform.sandbox': sandboxId },
        Volumes: { '/skills': {} },
        HostConfig: {
          NetworkMode: 'none',
          ReadonlyRootfs: true,
          Memory: limits.memoryMb * MB,
          MemorySwap: limits.memoryMb * MB,
          NanoCpus: 1e9,
          PidsLimit: limits.maxProcesses,
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges'],
          Privileged: false,
          Init: false,
          Tmpfs: {
            '/work': `size=${limits.diskMb}m,uid=65534,gid=65534,mode=0700`,
            '/tmp': `size=${limits.diskMb}m`,
          },
          Ulimits: [
            { Name: 'cpu', Soft: limits.cpuSeconds, Hard: limits.cpuSeconds + 1 },
            { Name: 'fsize', Soft: limits.maxFileMb * MB, Hard: limits.maxFileMb * MB },
            { Name: 'nofile', Soft: OPEN_FILES, Hard: OPEN_FILES },
            { Name: 'core', Soft: 0, Hard: 0 },
          ],
        },
      },
      [201],
      'create the container',
    );
    try {
      await this.engine.call(
        'POST',
        `/containers/${name}/start`,
        undefined,
        [204, 304],
        'start the container',
      );
      await this.putSkills(name, archive);
    } catch (error) {
      await this.destroy(sandboxId).catch(() => undefined);
      throw error;
    }
    this.sessions.touch(sandboxId);
  }

  async replaceSkills(sandboxId: string, files: readonly SandboxFile[]): Promise<void> {
    assertSandboxId(sandboxId);
    const archive = await skillsArchive(files);
    await this.requireAvailable();
    const name = this.nameOf(sandboxId);
    // In the sandbox's queue: a run never sees /skills emptied and not yet written again.
    await this.sessions.serialize(
      sandboxId,
      async () => {
        const execId = await this.execCreate(
          sandboxId,
          ['find', '/skills', '-mindepth', '1', '-delete'],
          '0:0',
        );
        await this.engine.execStart(execId, AbortSignal.timeout(30_000), Number.MAX_SAFE_INTEGER);
        await this.putSkills(name, archive);
      },
      { use: false },
    );
  }

  async run(sandboxId: string, request: RunRequest, signal: AbortSignal): Promise<RunResult> {
    assertSandboxId(sandboxId);
    assertRunRequest(request);
    await this.requireAvailable();
    return this.sessions.serialize(sandboxId, () => this.runNow(sandboxId, request, signal));
  }

  async listFiles(sandboxId: string): Promise<ListedSandboxFile[]> {
    assertSandboxId(sandboxId);
    const entries = await this.workEntries(sandboxId);
    return entries
      .map((entry) => ({ path: entry.path, sizeBytes: entry.size }))
      .sort((a, b) => a.path.localeCompare(b.path));
  }

  async readFile(sandboxId: string, path: string): Promise<Uint8Array | null> {
    assertSandboxId(sandboxId);
    // The whole work dir, never the path itself: the Engine would follow links the sandbox left.
    const entries = await this.workEntries(sandboxId);
    if (!safeSegments(path)) return null;
    const entry = entries.find((e) => e.path === path);
    return entry ? new Uint8Array(entry.bytes) : null;
  }

  async destroy(sandboxId: string): Promise<void> {
    assertSandboxId(sandboxId);
    await this.sessions.stop(sandboxId);
    await this.engine.call(
      'DELETE',
      `/containers/${this.nameOf(sandboxId)}?force=true&v=true`,
      undefined,
      [204, 404],
      'remove the container',
    );
    this.sessions.forget(sandboxId);
  }

  private nameOf(sandboxId: string): string {
    return `sandbox-${sandboxId}`;
  }

  private async requireAvailable(): Promise<void> {
    const availability = await this.availability();
    if (!availability.available) throw new SandboxUnavailableError(availability.reason);
  }

  private async probe(): Promise<SandboxAvailability> {
    const where = this.engine.where;
    let ping: EngineAnswer;
    try {
      ping = await this.engine.request('GET', '/_ping', undefined, AbortSignal.timeout(10_000));
    } catch (error) {
      return {
        available: false,
        reason: `the Docker Engine at ${where} cannot be reached: ${(error as Error).message}`,
      };
    }
    if (ping.status !== 200)
      return {
        available: false,
        reason: `the Docker Engine at ${where} answered ${ping.status} to /_ping: ${this.engine.said(ping)}`,
      };
    const image = await this.engine
      .request(
        'GET',
        `/images/${this.image.split('/').map(encodeURIComponent).join('/')}/json`,
        undefined,
        AbortSignal.timeout(10_000),
      )
      .catch((error: Error) => ({ status: 0, body: new TextEncoder().encode(error.message) }));
    if (image.status === 404)
      return {
        available: false,
        reason: `the image ${this.image} is not present on the Docker Engine at ${where} (docker pull ${this.image})`,
      };
    if (image.status !== 200)
      return {
        available: false,
        reason: `the Docker Engine at ${where} cannot inspect the image ${this.image}: ${image.status} ${this.engine.said(image)}`,
      };
    return { available: true };
  }

  private async runNow(sandboxId: string, request: RunRequest, signal: AbortSignal): Promise<RunResult> {
    const started = Date.now();
    const limits = this.limits;
    const seconds = String(Math.ceil(limits.wallTimeoutMs / 1000) + 1);
    const interpreter =
      request.language === 'python' ? ['python3', '-I', '-c', request.code] : ['sh', '-c', request.code];
    const execId = await this.execCreate(sandboxId, [
      'env',
      '-i',
      ...SANDBOX_ENV,
      'timeout',
      '-s',
      'KILL',
      seconds,
      ...interpreter,
    ]);
    const kill = this.sessions.track(sandboxId);
    const wall = new AbortController();
    const timer = setTimeout(() => wall.abort(), limits.wallTimeoutMs);
    let outcome: ExecOutput;
    try {
      outcome = await this.engine.execStart(
        execId,
        AbortSignal.any([signal, kill.signal, wall.signal]),
        limits.outputBytes,
        () => (wall.signal.aborted ? 'timeout' : 'abort'),
      );
    } finally {
      clearTimeout(timer);
      kill.release();
    }
    // Whatever the run left (background processes, or the run itself when it was cut).
    await this.killAll(sandboxId).catch(() => undefined);
    let exitCode: number | null = null;
    let ended: string | null = 'SIGKILL';
    if (!outcome.cut) {
      exitCode = await this.execExitCode(execId);
      ended = null;
      // Like a shell, the Engine reports a process ended by signal N as exit code 128 + N.
      if (exitCode !== null && exitCode > 128 && exitCode < 128 + 65) {
        ended = SIGNALS[exitCode - 128] ?? `SIG${exitCode - 128}`;
        exitCode = null;
      }
    }
    let killedBy: RunResult['killedBy'] = null;
    if (outcome.cut === 'timeout') killedBy = 'timeout';
    else if (outcome.cut === 'output') killedBy = 'output';
    else if (!outcome.cut && ended === 'SIGXCPU') killedBy = 'cpu';
    // `timeout -s KILL` fires after the adapter's own wall timer: a SIGKILL it did not send is the OOM killer's.
    else if (!outcome.cut && ended === 'SIGKILL') killedBy = 'memory';
    else if (exitCode !== 0 && request.language === 'python' && /^MemoryError\b/m.test(outcome.stderr))
      killedBy = 'memory';
    return {
      exitCode,
      signal: ended,
      stdout: outcome.stdout,
      stderr: outcome.stderr,
      truncated: outcome.truncated,
      durationMs: Date.now() - started,
      timedOut: outcome.cut === 'timeout',
      killedBy,
    };
  }

  private async killAll(sandboxId: string): Promise<void> {
    const execId = await this.execCreate(sandboxId, ['sh', '-c', 'kill -9 -1 2>/dev/null; true']);
    await this.engine.execStart(execId, AbortSignal.timeout(10_000), 4096);
  }

  private async execCreate(sandboxId: string, cmd: readonly string[], user = NOBODY): Promise<string> {
    const answer = await this.engine.request(
      'POST',
      `/containers/${this.nameOf(sandboxId)}/exec`,
      {
        Cmd: cmd,
        AttachStdin: false,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        User: user,
        WorkingDir: '/work',
        Privileged: false,
      },
      AbortSignal.timeout(30_000),
    );
    if (answer.status === 404) throw new NotFoundError('Sandbox', sandboxId);
    if (answer.status === 409) {
      throw new DockerApiError(409, `exec in ${this.nameOf(sandboxId)}`, 'the container is not running');
    }
    if (answer.status !== 201)
      throw new DockerApiError(answer.status, 'create an exec', this.engine.said(answer));
    const id = (JSON.parse(new TextDecoder().decode(answer.body)) as { Id?: unknown }).Id;
    if (typeof id !== 'string') throw new DockerApiError(answer.status, 'create an exec', 'no Id');
    return id;
  }

  private async execExitCode(execId: string): Promise<number | null> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const answer = await this.engine.call(
        'GET',
        `/exec/${encodeURIComponent(execId)}/json`,
        undefined,
        [200],
        'inspect an exec',
      );
      const state = JSON.parse(new TextDecoder().decode(answer.body)) as {
        Running?: boolean;
        ExitCode?: number | null;
      };
      if (!state.Running) return typeof state.ExitCode === 'number' ? state.ExitCode : null;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return null;
  }

  private async putSkills(name: string, archive: Uint8Array): Promise<void> {
    await this.engine.call(
      'PUT',
      `/containers/${name}/archive?path=/skills`,
      archive,
      [200],
      'place the skill files',
    );
  }

  /**
   * The regular files of /work (paths relative to it), from the Engine's archive of the directory, bounded: the
   * answer's bytes, the entries, and the bytes their headers declare.
   */
  private async workEntries(sandboxId: string): Promise<{ path: string; size: number; bytes: Uint8Array }[]> {
    const bound = this.limits.diskMb * MB * 2 + 16 * MB;
    const answer = await this.engine.request(
      'GET',
      `/containers/${this.nameOf(sandboxId)}/archive?path=/work`,
      undefined,
      AbortSignal.timeout(60_000),
      bound,
    );
    if (answer.status === 404) throw new NotFoundError('Sandbox', sandboxId);
    if (answer.status !== 200)
      throw new DockerApiError(answer.status, 'read /work', this.engine.said(answer));
    let entries;
    try {
      entries = await readTar(answer.body, { maxEntries: WORK_MAX_ENTRIES, maxBytes: bound });
    } catch (error) {
      if (error instanceof TarLimitError)
        throw new DockerApiError(answer.status, 'read /work', error.message);
      throw error;
    }
    const files: { path: string; size: number; bytes: Uint8Array }[] = [];
    for (const entry of entries) {
      if (entry.type !== 'file' && entry.type !== 'contiguous-file') continue;
      const slash = entry.path.indexOf('/');
      if (slash === -1) continue;
      const path = entry.path.slice(slash + 1);
      if (!safeSegments(path)) continue;
      files.push({ path, size: entry.size, bytes: entry.bytes });
    }
    return files;
  }
}
