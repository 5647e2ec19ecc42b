// What every sandbox adapter keeps the same way: the checks on ids, paths and run requests, and the bookkeeping of
// its sandboxes in this process (when each was last used, the runs of one sandbox one at a time, the runs under way
// that a destroy stops). Each adapter composes one SandboxSessions; only how code runs differs between them.
import { ValidationError } from '#kernel';
import { isSandboxId, type RunRequest } from './sandbox.port.js';

/** Linux refuses a single argument longer than this (MAX_ARG_STRLEN); the code is one argument in both adapters. */
export const MAX_CODE_BYTES = 128 * 1024 - 1;

export function assertSandboxId(sandboxId: unknown): asserts sandboxId is string {
  if (!isSandboxId(sandboxId))
    throw new ValidationError('invalid_sandbox_id', 'Not a sandbox id', 'sandboxId');
}

/** A relative `/`-separated path with no empty, `.` or `..` segment; null otherwise. */
export function safeSegments(path: string): string[] | null {
  if (typeof path !== 'string' || path.length === 0 || path.length > 4096 || path.includes('\0')) return null;
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return segments;
}

/** A run request an adapter can pass on: a known language, and code that fits one argument. */
export function assertRunRequest(request: RunRequest): void {
  if (request.language !== 'python' && request.language !== 'shell')
    throw new ValidationError('invalid_language', 'language is python or shell', 'language');
  if (typeof request.code !== 'string' || request.code.includes('\0'))
    throw new ValidationError('invalid_code', 'code is a string without NUL', 'code');
  if (Buffer.byteLength(request.code) > MAX_CODE_BYTES)
    throw new ValidationError('code_too_large', `code is at most ${MAX_CODE_BYTES} bytes`, 'code');
}

export class SandboxSessions {
  private readonly lastUsed = new Map<string, number>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly running = new Map<string, Set<AbortController>>();

  constructor(private readonly idleTimeoutMs: number) {}

  touch(sandboxId: string): void {
    this.lastUsed.set(sandboxId, Date.now());
  }

  /** Sandboxes of this process unused for longer than the idle timeout, for their owner to destroy. */
  idle(now = Date.now()): string[] {
    return [...this.lastUsed].filter(([, at]) => now - at > this.idleTimeoutMs).map(([id]) => id);
  }

  /**
   * Runs `work` after the sandbox's earlier work (one at a time), then counts the sandbox as used unless `use` is
   * false. Runs and the rewrites of /skills share the queue, so a run sees the Skills before or after a rewrite,
   * never half of it.
   */
  async serialize<T>(sandboxId: string, work: () => Promise<T>, { use = true } = {}): Promise<T> {
    const previous = this.queues.get(sandboxId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.queues.set(sandboxId, next);
    try {
      return await next;
    } finally {
      if (this.queues.get(sandboxId) === next) this.queues.delete(sandboxId);
      if (use && this.lastUsed.has(sandboxId)) this.touch(sandboxId);
    }
  }

  /** A signal a destroy of the sandbox aborts, for one run; `release` when the run is over. */
  track(sandboxId: string): { readonly signal: AbortSignal; release(): void } {
    const kill = new AbortController();
    const runs = this.running.get(sandboxId) ?? new Set<AbortController>();
    runs.add(kill);
    this.running.set(sandboxId, runs);
    return {
      signal: kill.signal,
      release: () => {
        runs.delete(kill);
        if (runs.size === 0) this.running.delete(sandboxId);
      },
    };
  }

  /** Stops the sandbox's runs under way and waits for its queue: what a destroy does before removing anything. */
  async stop(sandboxId: string): Promise<void> {
    for (const kill of this.running.get(sandboxId) ?? []) kill.abort();
    await (this.queues.get(sandboxId) ?? Promise.resolve()).catch(() => undefined);
  }

  forget(sandboxId: string): void {
    this.lastUsed.delete(sandboxId);
  }
}
