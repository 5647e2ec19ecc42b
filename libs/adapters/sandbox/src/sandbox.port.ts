// The code-sandbox port: a place where untrusted code (a model's Python or shell) runs with no network, no view of the
// platform's files or environment, and hard limits on CPU, memory, processes, disk, output and time. A sandbox is a
// writable work dir kept between runs (files one run writes, the next run reads) plus read-only skill files.
// Adapters: the embedded bubblewrap adapter and the Docker adapter for production (one container per sandbox).
import { PlatformError } from '#kernel';

export interface SandboxLimits {
  /** CPU seconds per process (RLIMIT_CPU): the process gets SIGXCPU when it has used this much. */
  readonly cpuSeconds: number;
  /** Memory of the sandbox as a whole (its cgroup: processes, tmpfs pages, no swap), in MiB; also RLIMIT_AS. */
  readonly memoryMb: number;
  /** Size of the work dir (bounded while the run writes), in MiB; also the size of the run's /tmp and /dev/shm. */
  readonly diskMb: number;
  /** Inodes (files, directories, symbolic links) the work dir may hold; the adapter's default when absent. */
  readonly workInodes?: number;
  /** Processes (threads included) the sandbox may have at once (its cgroup's pids.max, and RLIMIT_NPROC). */
  readonly maxProcesses: number;
  /** Largest file a run may write, in MiB (RLIMIT_FSIZE). */
  readonly maxFileMb: number;
  /** stdout and stderr together: past this the run is killed and its output truncated. */
  readonly outputBytes: number;
  /** Wall-clock time of one run: past this the whole run is killed (`timedOut`). */
  readonly wallTimeoutMs: number;
  /**
   * How long a sandbox may sit unused before it is destroyed. The embedded adapter keeps no process between runs:
   * `idleSandboxes()` names those unused for longer, for the owner of their lifecycle to destroy.
   */
  readonly idleTimeoutMs: number;
}

export interface RunRequest {
  readonly language: 'python' | 'shell';
  readonly code: string;
}

export interface RunResult {
  /** The exit code, or null when the run ended by a signal. */
  readonly exitCode: number | null;
  /** The signal that ended the run (`SIGKILL`, `SIGXCPU`, …), or null. */
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The output reached `outputBytes` and what followed was dropped. */
  readonly truncated: boolean;
  readonly durationMs: number;
  /** The run was killed at `wallTimeoutMs`. */
  readonly timedOut: boolean;
  /** Which limit ended the run, when one did. */
  readonly killedBy: 'timeout' | 'memory' | 'cpu' | 'output' | null;
}

export interface SandboxFile {
  /** Relative path, `/`-separated, no `..`. */
  readonly path: string;
  readonly bytes: Uint8Array;
}

export interface ListedSandboxFile {
  /** Relative to the work dir, `/`-separated. */
  readonly path: string;
  readonly sizeBytes: number;
}

export type SandboxAvailability =
  { readonly available: true } | { readonly available: false; readonly reason: string };

export interface CodeSandbox {
  /** The sandboxes unused for longer than the idle timeout (their owner destroys them). */
  idleSandboxes?(now?: number): string[];
  /** Replaces the read-only files under /skills of an existing sandbox, keeping /work (a rebuild). */
  replaceSkills(sandboxId: string, files: readonly SandboxFile[]): Promise<void>;
  /** Whether runs can happen here at all (checked once and cached). */
  availability(): Promise<SandboxAvailability>;
  /**
   * Makes the sandbox: an empty work dir and `files` placed read-only under /skills. Creating an id that exists resets
   * it (its work dir is emptied, its skills replaced). SandboxUnavailableError when the adapter is unavailable.
   */
  create(sandboxId: string, files: readonly SandboxFile[]): Promise<void>;
  /**
   * Runs the code in the sandbox (cwd /work). Never throws on what the code does: every outcome is a RunResult.
   * Throws SandboxUnavailableError when unavailable, NotFoundError for an unknown sandbox, ValidationError for a
   * malformed request. Aborting `signal` kills the run; the result says what it had produced.
   */
  run(sandboxId: string, request: RunRequest, signal: AbortSignal): Promise<RunResult>;
  /** The regular files of the work dir (symbolic links and special files are not listed). */
  listFiles(sandboxId: string): Promise<ListedSandboxFile[]>;
  /** A regular file of the work dir, or null (absent, a link, a directory, or a path leading outside). */
  readFile(sandboxId: string, path: string): Promise<Uint8Array | null>;
  /** Kills any run of the sandbox and removes everything it held; destroying an unknown id does nothing. */
  destroy(sandboxId: string): Promise<void>;
}

export const CODE_SANDBOX = Symbol('CODE_SANDBOX');

/** Code execution cannot happen on this host (no sandboxing available): never a silent unsandboxed fallback. */
export class SandboxUnavailableError extends PlatformError {
  constructor(reason: string) {
    super('unavailable', 'code_execution_unavailable', `Code execution is unavailable: ${reason}`);
  }
}

const SANDBOX_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export const isSandboxId = (value: unknown): value is string =>
  typeof value === 'string' && SANDBOX_ID.test(value);
