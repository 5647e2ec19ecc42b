// The Docker adapter: the shared contract against a real Docker Engine when one is configured (DOCKER_HOST, or the
// socket at /var/run/docker.sock), skipped aloud otherwise; and always, the requests it sends to a fake Engine API
// (a node:http server on a temporary unix socket, the network edge this platform does not own).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack } from 'tar-stream';
import { skipWithReason } from '#testing/fixtures';
import { CONTRACT_LIMITS, codeSandboxContract, freshSandboxId } from '../sandbox.contract.js';
import { SandboxUnavailableError } from '../sandbox.port.js';
import { DockerSandbox } from './docker-sandbox.js';
import { readTar, writeTar } from './tar.js';

const IMAGE = process.env.SANDBOX_IMAGE ?? 'python:3.12-slim';
const never = (): AbortSignal => new AbortController().signal;

interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly body: Buffer;
  json<T = Record<string, unknown>>(): T;
}

/** Frames of the Engine's multiplexed stream: stream type, three zero bytes, the big-endian payload length. */
const frame = (stream: 1 | 2, text: string): Buffer => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

const WORK = await writeTar([
  { path: 'work', type: 'directory', mode: 0o700 },
  { path: 'work/out', type: 'directory', mode: 0o755 },
  { path: 'work/out/a.txt', type: 'file', mode: 0o644, bytes: new TextEncoder().encode('data 1') },
  { path: 'work/b.txt', type: 'file', mode: 0o644, bytes: new TextEncoder().encode('more\n') },
]);

/** A fake Docker Engine API: records every request; `ping` and `frames` say how it answers. */
class FakeEngine {
  readonly requests: Recorded[] = [];
  ping = 200;
  frames: Buffer[] = [frame(1, 'hello\n'), frame(2, 'oops\n'), frame(1, 'bye\n')];
  exitCode = 3;
  /** Keep the run's stream open after its frames (a run that does not end). */
  hang = false;
  /** What GET /containers/…/archive?path=/work answers. */
  work: Uint8Array = WORK;
  private server: Server | undefined;
  private execs = 0;

  constructor(readonly socketPath: string) {}

  start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.body(req).then((body) => {
        const url = req.url ?? '';
        this.requests.push({
          method: req.method ?? '',
          url,
          body,
          json: <T>() => JSON.parse(body.toString('utf8')) as T,
        });
        const send = (status: number, value?: unknown): void => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(value === undefined ? undefined : JSON.stringify(value));
        };
        const path = url.split('?')[0]!;
        if (path === '/_ping') {
          res.writeHead(this.ping, { 'content-type': 'text/plain' });
          res.end(this.ping === 200 ? 'OK' : 'engine broken');
        } else if (path.startsWith('/images/')) send(200, { Id: 'sha256:abc' });
        else if (path === '/containers/create') send(201, { Id: 'c0ffee', Warnings: [] });
        else if (/^\/containers\/[^/]+\/start$/.test(path)) send(204);
        else if (req.method === 'GET' && /^\/containers\/[^/]+\/archive$/.test(path)) {
          res.writeHead(200, { 'content-type': 'application/x-tar' });
          res.end(this.work);
        } else if (/^\/containers\/[^/]+\/archive$/.test(path)) send(200);
        else if (/^\/containers\/[^/]+\/exec$/.test(path)) send(201, { Id: `exec-${++this.execs}` });
        else if (/^\/exec\/[^/]+\/start$/.test(path)) {
          res.writeHead(200, { 'content-type': 'application/vnd.docker.multiplexed-stream' });
          const isRun = path === '/exec/exec-1/start';
          for (const chunk of isRun ? this.frames : []) {
            // Split each frame in two writes: the reader must reassemble headers and payloads.
            res.write(chunk.subarray(0, 5));
            res.write(chunk.subarray(5));
          }
          if (!(isRun && this.hang)) res.end();
        } else if (/^\/exec\/[^/]+\/json$/.test(path)) send(200, { Running: false, ExitCode: this.exitCode });
        else if (req.method === 'DELETE' && path.startsWith('/containers/'))
          send(404, { message: 'no such' });
        else send(404, { message: `fake: ${req.method} ${path}` });
      });
    });
    return new Promise((resolve) => this.server!.listen(this.socketPath, resolve));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server!.close(() => resolve());
      this.server!.closeAllConnections();
    });
  }

  of(method: string, pattern: RegExp): Recorded[] {
    return this.requests.filter((r) => r.method === method && pattern.test(r.url));
  }

  private async body(req: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

describe('DockerSandbox against a fake Docker Engine API', () => {
  let dir: string;
  let engine: FakeEngine;
  let sandbox: DockerSandbox;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fake-docker-'));
    engine = new FakeEngine(join(dir, 'docker.sock'));
    await engine.start();
    sandbox = new DockerSandbox({
      endpoint: `unix://${engine.socketPath}`,
      image: IMAGE,
      limits: CONTRACT_LIMITS,
    });
  });
  afterEach(async () => {
    await sandbox.close();
    await engine.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a locked-down container: no network, read-only root, limits, no capabilities, not root', async () => {
    const id = freshSandboxId();
    await sandbox.create(id, [{ path: 'pdf/SKILL.md', bytes: new TextEncoder().encode('# PDF') }]);
    const [create] = engine.of('POST', /^\/containers\/create/);
    expect(create!.url).toBe(`/containers/create?name=sandbox-${id}`);
    const body = create!.json<{
      Image: string;
      User: string;
      Env: string[];
      Cmd: string[];
      NetworkDisabled: boolean;
      Labels: Record<string, string>;
      HostConfig: Record<string, unknown>;
    }>();
    expect(body).toMatchObject({
      Image: IMAGE,
      Cmd: ['sleep', 'infinity'],
      NetworkDisabled: true,
      Labels: { 'agent-platform.sandbox': id },
    });
    expect(body.User.split(':')[0]).not.toMatch(/^(0|root)?$/);
    expect(body.Env.map((e) => e.split('=')[0]).sort()).toEqual(['HOME', 'LANG', 'PATH']);
    expect(body.HostConfig).toMatchObject({
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Memory: CONTRACT_LIMITS.memoryMb * 1024 * 1024,
      MemorySwap: CONTRACT_LIMITS.memoryMb * 1024 * 1024,
      PidsLimit: CONTRACT_LIMITS.maxProcesses,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
    });
    expect(body.HostConfig.Tmpfs).toMatchObject({ '/work': expect.stringContaining('size=20m') });
    expect(engine.of('POST', new RegExp(`^/containers/sandbox-${id}/start$`))).toHaveLength(1);
    const [put] = engine.of('PUT', new RegExp(`^/containers/sandbox-${id}/archive\\?path=/skills$`));
    const entries = await readTar(put!.body, { maxEntries: 10, maxBytes: 1024 });
    expect(entries.map((e) => [e.path, e.type])).toEqual([
      ['pdf', 'directory'],
      ['pdf/SKILL.md', 'file'],
    ]);
    expect(new TextDecoder().decode(entries[1]!.bytes)).toBe('# PDF');
  });

  it('runs through exec create and start, decoding the multiplexed stream and the exit code', async () => {
    const result = await sandbox.run('sbx-one', { language: 'python', code: 'print(1)' }, never());
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'hello\nbye\n',
      stderr: 'oops\n',
      truncated: false,
      timedOut: false,
      killedBy: null,
    });
    const [exec] = engine.of('POST', /^\/containers\/sandbox-sbx-one\/exec$/);
    const execBody = exec!.json<{
      Cmd: string[];
      User: string;
      AttachStdout: boolean;
      AttachStderr: boolean;
    }>();
    expect(execBody).toMatchObject({ AttachStdout: true, AttachStderr: true });
    expect(execBody.User.split(':')[0]).toBe('65534');
    expect(execBody.Cmd).toEqual(
      expect.arrayContaining(['timeout', '-s', 'KILL', 'python3', '-I', '-c', 'print(1)']),
    );
    const [start] = engine.of('POST', /^\/exec\/exec-1\/start$/);
    expect(start!.json()).toEqual({ Detach: false, Tty: false });
    expect(engine.of('GET', /^\/exec\/exec-1\/json$/)).toHaveLength(1);
  });

  it('cuts the output at the cap (truncated, killedBy output)', async () => {
    engine.frames = [frame(1, 'x'.repeat(40_000)), frame(2, 'y'.repeat(40_000)), frame(1, 'never')];
    const result = await sandbox.run('sbx-one', { language: 'shell', code: 'yes' }, never());
    expect(result).toMatchObject({ truncated: true, killedBy: 'output', exitCode: null });
    expect(result.stdout.length + result.stderr.length).toBe(CONTRACT_LIMITS.outputBytes);
    expect(result.stdout).not.toContain('never');
  });

  it('maps an exit code of 128 + N to the signal', async () => {
    engine.exitCode = 128 + 24;
    const result = await sandbox.run('sbx-one', { language: 'python', code: 'while True: pass' }, never());
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGXCPU', killedBy: 'cpu' });
  });

  it('ends a run the caller aborts with what it had produced, and kills what runs in the container', async () => {
    engine.frames = [frame(1, 'started\n')];
    engine.hang = true;
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    const result = await sandbox.run('sbx-one', { language: 'shell', code: 'sleep 30' }, abort.signal);
    expect(result).toMatchObject({ stdout: 'started\n', exitCode: null, timedOut: false, killedBy: null });
    const kill = engine.of('POST', /^\/containers\/sandbox-sbx-one\/exec$/)[1]!;
    expect(kill.json<{ Cmd: string[]; User: string }>()).toMatchObject({
      Cmd: ['sh', '-c', expect.stringContaining('kill -9 -1')],
      User: '65534:65534',
    });
  });

  it('ends a run at the wall timeout (timedOut)', async () => {
    engine.hang = true;
    const started = Date.now();
    const result = await sandbox.run('sbx-one', { language: 'shell', code: 'sleep 30' }, never());
    expect(result).toMatchObject({ timedOut: true, killedBy: 'timeout', exitCode: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(CONTRACT_LIMITS.wallTimeoutMs + 2_000);
  });

  it('lists and reads the regular files of /work from its archive', async () => {
    expect(await sandbox.listFiles('sbx-one')).toEqual([
      { path: 'b.txt', sizeBytes: 5 },
      { path: 'out/a.txt', sizeBytes: 6 },
    ]);
    expect(new TextDecoder().decode((await sandbox.readFile('sbx-one', 'out/a.txt'))!)).toBe('data 1');
    expect(await sandbox.readFile('sbx-one', 'out')).toBeNull();
    expect(await sandbox.readFile('sbx-one', '../skills/x')).toBeNull();
    expect(await sandbox.readFile('sbx-one', 'missing.txt')).toBeNull();
    expect(engine.of('GET', /^\/containers\/sandbox-sbx-one\/archive\?path=\/work$/)).toHaveLength(5);
  });

  it("leaves /work's links out and reads its long (PAX) paths", async () => {
    const long = `${'deep/'.repeat(30)}report.csv`;
    const archive = pack();
    archive.entry({ name: 'work/', type: 'directory', mode: 0o700 });
    archive.entry({ name: 'work/passwd', type: 'symlink', linkname: '/etc/passwd' });
    archive.entry({ name: `work/${long}` }, 'a,b\n');
    archive.finalize();
    const chunks: Uint8Array[] = [];
    for await (const chunk of archive as AsyncIterable<Uint8Array>) chunks.push(chunk);
    engine.work = Buffer.concat(chunks);
    expect(await sandbox.listFiles('sbx-one')).toEqual([{ path: long, sizeBytes: 4 }]);
    expect(await sandbox.readFile('sbx-one', 'passwd')).toBeNull();
  });

  it('destroys with DELETE force (and the volumes); an unknown container is no error', async () => {
    await sandbox.destroy('sbx-gone');
    const [del] = engine.of('DELETE', /^\/containers\//);
    expect(del!.url).toBe('/containers/sandbox-sbx-gone?force=true&v=true');
  });

  it('is unavailable when the Engine answers 500 to /_ping, and refuses to create or run', async () => {
    engine.ping = 500;
    const said = await sandbox.availability();
    expect(said.available).toBe(false);
    expect(said.available ? '' : said.reason).toMatch(/_ping/);
    await expect(sandbox.create(freshSandboxId(), [])).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(sandbox.run('sbx-one', { language: 'shell', code: 'true' }, never())).rejects.toBeInstanceOf(
      SandboxUnavailableError,
    );
    expect(engine.of('POST', /^\/containers\//)).toEqual([]);
  });

  it('is unavailable, naming the endpoint, when nothing listens there', async () => {
    const nowhere = new DockerSandbox({
      endpoint: `unix://${join(dir, 'absent.sock')}`,
      image: IMAGE,
      limits: CONTRACT_LIMITS,
    });
    const said = await nowhere.availability();
    expect(said.available ? '' : said.reason).toContain('absent.sock');
    await nowhere.close();
  });
});

const endpoint =
  process.env.DOCKER_HOST ?? (existsSync('/var/run/docker.sock') ? 'unix:///var/run/docker.sock' : undefined);

if (endpoint) {
  const real = new DockerSandbox({ endpoint, image: IMAGE, limits: CONTRACT_LIMITS });
  const availability = await real.availability();
  afterAll(() => real.close());
  if (availability.available) codeSandboxContract('docker', async () => real);
  else {
    const suite = 'CodeSandbox contract: docker';
    skipWithReason(suite, availability.reason);
    it(`${suite} did not run: ${availability.reason}`, () => expect(availability.reason).toBeTruthy());
  }
} else {
  skipWithReason(
    'CodeSandbox contract: docker',
    `DOCKER_HOST is not set (start Docker, set DOCKER_HOST=unix:///var/run/docker.sock or tcp://localhost:2375, and docker pull ${IMAGE})`,
  );
}
