// The production code sandbox: one container per sandbox, driven through the Docker Engine API (HTTP over the unix
// socket, or a `tcp://`/`http(s)://` endpoint). The container is `sandbox-<id>`, labelled `agent-platform.sandbox`,
// and sleeps; each run is an exec in it.
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
// Over 300 lines on purpose: the one adapter that speaks the Docker Engine API for sandboxes (containers, exec
// streams, archives), so its limits and kill paths cannot drift apart across files.
import { Client } from 'undici';
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
import { fitsTarName, readTar, type TarInput, writeTar } from './tar.js';

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
function skillsArchive(files: readonly SandboxFile[]): Uint8Array {
  const entries: TarInput[] = [];
  const dirs = new Set<string>();
  const seen = new Set<string>();
  for (const file of files) {
    const segments = safeSegments(file.path);
    if (!segments || !fitsTarName(file.path))
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

/** A Docker Engine answer that was not the expected one. */
export class DockerApiError extends Error {
  constructor(
    readonly status: number,
    what: string,
    message: string,
  ) {
    super(`Docker Engine: ${what}: ${status} ${message}`.trim());
  }
}

interface Answer {
  readonly status: number;
  readonly body: Uint8Array;
}

interface StreamOutcome {
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** Why the adapter cut the stream, or null when it ended by itself. */
  cut: 'timeout' | 'output' | 'abort' | null;
}

export class DockerSandbox implements CodeSandbox {
  private readonly origin: string;
  private readonly socketPath: string | undefined;
  private readonly image: string;
  private readonly limits: SandboxLimits;
  private client: Client | undefined;
  private probed: Promise<SandboxAvailability> | undefined;
  private readonly sessions: SandboxSessions;

  constructor(options: DockerSandboxOptions) {
    const endpoint = options.endpoint;
    if (endpoint.startsWith('unix://')) {
      this.socketPath = endpoint.slice('unix://'.length);
      this.origin = 'http://localhost';
    } else if (endpoint.startsWith('tcp://')) {
      this.origin = `http://${endpoint.slice('tcp://'.length)}`;
    } else if (/^https?:\/\//.test(endpoint)) {
      this.origin = endpoint;
    } else {
      throw new ValidationError('invalid_docker_endpoint', `Not a Docker endpoint: ${endpoint}`, 'endpoint');
    }
    this.origin = new URL(this.origin).origin;
    this.image = options.image;
    this.limits = options.limits;
    this.sessions = new SandboxSessions(options.limits.idleTimeoutMs);
  }

  /** Closes the connections to the Engine (the containers stay). */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close();
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
    const archive = skillsArchive(files);
    await this.requireAvailable();
    await this.destroy(sandboxId);
    const name = this.nameOf(sandboxId);
    const limits = this.limits;
    await this.call(
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
      await this.call('POST', `/containers/${name}/start`, undefined, [204, 304], 'start the container');
      await this.putSkills(name, archive);
    } catch (error) {
      await this.destroy(sandboxId).catch(() => undefined);
      throw error;
    }
    this.sessions.touch(sandboxId);
  }

  async replaceSkills(sandboxId: string, files: readonly SandboxFile[]): Promise<void> {
    assertSandboxId(sandboxId);
    const archive = skillsArchive(files);
    await this.requireAvailable();
    const name = this.nameOf(sandboxId);
    const execId = await this.execCreate(sandboxId, ['find', '/skills', '-mindepth', '1', '-delete'], '0:0');
    await this.execStart(execId, AbortSignal.timeout(30_000), Number.MAX_SAFE_INTEGER);
    await this.putSkills(name, archive);
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
    await this.call(
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
    const where = this.socketPath ? `unix://${this.socketPath}` : this.origin;
    let ping: Answer;
    try {
      ping = await this.send('GET', '/_ping', undefined, AbortSignal.timeout(10_000));
    } catch (error) {
      return {
        available: false,
        reason: `the Docker Engine at ${where} cannot be reached: ${(error as Error).message}`,
      };
    }
    if (ping.status !== 200)
      return {
        available: false,
        reason: `the Docker Engine at ${where} answered ${ping.status} to /_ping: ${this.said(ping)}`,
      };
    const image = await this.send(
      'GET',
      `/images/${this.image.split('/').map(encodeURIComponent).join('/')}/json`,
      undefined,
      AbortSignal.timeout(10_000),
    ).catch((error: Error) => ({ status: 0, body: new TextEncoder().encode(error.message) }));
    if (image.status === 404)
      return {
        available: false,
        reason: `the image ${this.image} is not present on the Docker Engine at ${where} (docker pull ${this.image})`,
      };
    if (image.status !== 200)
      return {
        available: false,
        reason: `the Docker Engine at ${where} cannot inspect the image ${this.image}: ${image.status} ${this.said(image)}`,
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
    let outcome: StreamOutcome;
    try {
      outcome = await this.execStart(
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
    await this.execStart(execId, AbortSignal.timeout(10_000), 4096);
  }

  private async execCreate(sandboxId: string, cmd: readonly string[], user = NOBODY): Promise<string> {
    const answer = await this.send(
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
    if (answer.status !== 201) throw new DockerApiError(answer.status, 'create an exec', this.said(answer));
    const id = (JSON.parse(new TextDecoder().decode(answer.body)) as { Id?: unknown }).Id;
    if (typeof id !== 'string') throw new DockerApiError(answer.status, 'create an exec', 'no Id');
    return id;
  }

  /**
   * Starts an exec and reads its multiplexed output (frames of an 8-byte header: stream 1 stdout or 2 stderr, three
   * zero bytes, the big-endian payload length) up to `cap` bytes of payload; past the cap, or when `signal` aborts,
   * the connection is dropped and the outcome says why.
   */
  private async execStart(
    execId: string,
    signal: AbortSignal,
    cap: number,
    why: () => 'timeout' | 'abort' = () => 'abort',
  ): Promise<StreamOutcome> {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let taken = 0;
    let truncated = false;
    let cut: StreamOutcome['cut'] = null;
    const stop = new AbortController();
    const onAbort = (): void => {
      cut ??= why();
      stop.abort();
    };
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort);
    // The Engine takes the connection over for the stream and closes it at the end: a client of its own.
    const client = this.newClient();
    try {
      if (!stop.signal.aborted) {
        const response = await client.request({
          method: 'POST',
          path: `/exec/${encodeURIComponent(execId)}/start`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Detach: false, Tty: false }),
          signal: stop.signal,
        });
        if (response.statusCode !== 200) {
          const body = await response.body.text().catch(() => '');
          throw new DockerApiError(response.statusCode, 'start an exec', body.slice(0, 300));
        }
        let pending: Buffer = Buffer.alloc(0);
        try {
          for await (const chunk of response.body as AsyncIterable<Buffer>) {
            pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
            while (pending.length >= 8) {
              const length = pending.readUInt32BE(4);
              if (pending.length < 8 + length) break;
              const stream = pending[0];
              const payload = pending.subarray(8, 8 + length);
              pending = pending.subarray(8 + length);
              const into = stream === 2 ? err : out;
              const room = cap - taken;
              if (payload.length > room) {
                into.push(payload.subarray(0, room));
                taken = cap;
                truncated = true;
                cut ??= 'output';
                stop.abort();
                break;
              }
              into.push(payload);
              taken += payload.length;
            }
            if (stop.signal.aborted) break;
          }
        } catch (error) {
          if (!stop.signal.aborted) throw error;
        }
      }
    } catch (error) {
      if (!stop.signal.aborted) throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
      await client.destroy().catch(() => undefined);
    }
    return {
      stdout: Buffer.concat(out).toString('utf8'),
      stderr: Buffer.concat(err).toString('utf8'),
      truncated,
      cut,
    };
  }

  private async execExitCode(execId: string): Promise<number | null> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const answer = await this.call(
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
    await this.call(
      'PUT',
      `/containers/${name}/archive?path=/skills`,
      archive,
      [200],
      'place the skill files',
    );
  }

  /** The regular files of /work (paths relative to it), from the Engine's archive of the directory, bounded. */
  private async workEntries(sandboxId: string): Promise<{ path: string; size: number; bytes: Uint8Array }[]> {
    const bound = this.limits.diskMb * MB * 2 + 16 * MB;
    const answer = await this.send(
      'GET',
      `/containers/${this.nameOf(sandboxId)}/archive?path=/work`,
      undefined,
      AbortSignal.timeout(60_000),
      bound,
    );
    if (answer.status === 404) throw new NotFoundError('Sandbox', sandboxId);
    if (answer.status !== 200) throw new DockerApiError(answer.status, 'read /work', this.said(answer));
    const files: { path: string; size: number; bytes: Uint8Array }[] = [];
    for (const entry of readTar(answer.body)) {
      if (entry.type !== '0' && entry.type !== '7') continue;
      const slash = entry.path.indexOf('/');
      if (slash === -1) continue;
      const path = entry.path.slice(slash + 1);
      if (!safeSegments(path)) continue;
      files.push({ path, size: entry.size, bytes: entry.bytes });
    }
    return files;
  }

  private newClient(): Client {
    return new Client(this.origin, this.socketPath ? { socketPath: this.socketPath } : {});
  }

  private said(answer: Answer): string {
    const text = new TextDecoder().decode(answer.body.subarray(0, 600));
    try {
      const message = (JSON.parse(text) as { message?: unknown }).message;
      if (typeof message === 'string') return message.slice(0, 300);
    } catch {
      // not JSON
    }
    return text.trim().slice(0, 300);
  }

  private async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body: unknown,
    expected: readonly number[],
    what: string,
  ): Promise<Answer> {
    const answer = await this.send(method, path, body, AbortSignal.timeout(60_000));
    if (!expected.includes(answer.status)) throw new DockerApiError(answer.status, what, this.said(answer));
    return answer;
  }

  /** One request to the Engine; a body of more than `bound` bytes is refused. */
  private async send(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body: unknown,
    signal: AbortSignal,
    bound = 16 * MB,
  ): Promise<Answer> {
    this.client ??= this.newClient();
    const raw = body instanceof Uint8Array;
    const response = await this.client.request({
      method,
      path,
      headers: body === undefined ? {} : { 'content-type': raw ? 'application/x-tar' : 'application/json' },
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
      signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > bound) {
        response.body.destroy();
        throw new DockerApiError(
          response.statusCode,
          `${method} ${path}`,
          `answer larger than ${bound} bytes`,
        );
      }
      chunks.push(chunk);
    }
    return { status: response.statusCode, body: Buffer.concat(chunks) };
  }
}
