// The operators' CLI over real SQLite stores in a fresh DATA_DIR: the command implementations (EventLog,
// ProjectionAdmin) with a captured output, and once through nest-commander's argument parsing. jest cannot run the
// compiled CLI, and nest-commander (CommonJS requiring ESM Nest) only loads here through a dynamic import.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { loadConfig, type NewEvent, type PlatformConfig } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { BLOB_STORE, type BlobStore, type StoredBlob } from '#blob-store';
import { READ_STORE, type ReadStore, type StoredDocument } from '#read-store';
import { ProjectionRunner, PROJECTORS, type Projector } from '#eventsourcing';
import { InfrastructureModule, createLogger } from '#infrastructure';
import { AggregateRepository } from '#eventsourcing';
import { documentDecider } from '#knowledge/document.decider';
import { documentStreamId } from '#knowledge';
import { spaceStreamId } from '#spaces';
import { waitUntil } from '#testing/fixtures';
import { ALL_PROJECTORS, PROCESS_MODULES } from '../apps/projectors.js';
import { EventLog } from '../apps/cli/src/event-log.js';
import { ProjectionAdmin } from '../apps/cli/src/projection-admin.js';
import { capturedOutput, CliError, type CapturedOutput } from '../apps/cli/src/output.js';
import { tempDir } from './support/temp-dir.js';

interface Platform {
  readonly config: PlatformConfig;
  readonly app: INestApplicationContext;
  readonly eventStore: EventStore;
  readonly readStore: ReadStore;
  readonly projectors: Projector[];
  readonly output: CapturedOutput;
  readonly log: EventLog;
  readonly admin: ProjectionAdmin;
}

const open: INestApplicationContext[] = [];
const runners: ProjectionRunner[] = [];

async function boot(): Promise<Platform> {
  const config = loadConfig({
    DATA_DIR: tempDir('agent-platform-cli-'),
    LOG_LEVEL: 'silent',
  });
  const app = await NestFactory.createApplicationContext(
    {
      module: class CliSpecRoot {},
      imports: [
        InfrastructureModule.forRoot({ config, projectors: ALL_PROJECTORS, logger: createLogger(config) }),
        ...PROCESS_MODULES,
      ],
    },
    { logger: false },
  );
  open.push(app);
  const eventStore = app.get<EventStore>(EVENT_STORE);
  const readStore = app.get<ReadStore>(READ_STORE);
  const projectors = app.get<Projector[]>(PROJECTORS);
  const output = capturedOutput();
  return {
    config,
    app,
    eventStore,
    readStore,
    projectors,
    output,
    log: new EventLog(eventStore, config, output),
    admin: new ProjectionAdmin(eventStore, readStore, projectors, app.get(ProjectionRunner), output),
  };
}

const event = (
  type: string,
  data: Record<string, unknown>,
  correlationId: string,
  causationId: string | null = null,
): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    correlationId,
    causationId,
    actor: { kind: 'user', id: 'usr_alice' },
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

/** Two Spaces: one created then renamed, one created; five events in all with a deleted third Space. */
async function seed(eventStore: EventStore): Promise<{ first: string; second: string }> {
  const first = `spc_${randomUUID().replace(/-/g, '')}`;
  const second = `spc_${randomUUID().replace(/-/g, '')}`;
  const third = `spc_${randomUUID().replace(/-/g, '')}`;
  const created = (spaceId: string, name: string) =>
    event(
      'SpaceCreated',
      { spaceId, name, slug: name.toLowerCase(), description: '', color: '#1e88e5' },
      `corr-${name}`,
    );
  await eventStore.appendToStream(spaceStreamId(first), [created(first, 'Alpha')], 'no_stream');
  await eventStore.appendToStream(
    spaceStreamId(first),
    [event('SpaceRenamed', { spaceId: first, name: 'Alpha 2' }, 'corr-rename', 'cause-1')],
    0,
  );
  await eventStore.appendToStream(spaceStreamId(second), [created(second, 'Beta')], 'no_stream');
  await eventStore.appendToStream(spaceStreamId(third), [created(third, 'Gamma')], 'no_stream');
  await eventStore.appendToStream(
    spaceStreamId(third),
    [event('SpaceDeleted', { spaceId: third }, 'corr-delete')],
    0,
  );
  return { first, second };
}

/** Runs every projector until caught up, then stops (releasing the leases), as an api that has since exited. */
async function project(platform: Platform): Promise<void> {
  const runner = new ProjectionRunner(platform.eventStore, platform.readStore, platform.projectors, {
    owner: `test-runner/${process.pid}/${randomUUID().slice(0, 8)}`,
  });
  runner.start();
  expect(await runner.caughtUp(10_000)).toBe(true);
  await runner.stop();
}

const rowOf = (lines: readonly string[], name: string): string[] =>
  lines.find((line) => line.startsWith(`${name} `))!.split(/\s{2,}/);

afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
  await Promise.all(open.splice(0).map((app) => app.close()));
});

/** The spaces projector's version as the CLI prints it (it changes when the read model's shape does). */
const spacesVersion = (platform: { projectors: readonly Projector[] }) =>
  String(platform.projectors.find((projector) => projector.name === 'spaces')!.version);

describe('events stream', () => {
  it("prints an entity's history from a bare entity id or a full stream id", async () => {
    const platform = await boot();
    const { first } = await seed(platform.eventStore);

    await platform.log.history(first);
    const lines = platform.output.lines.splice(0);
    expect(lines[0]).toBe(`space-${first}: 2 events`);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      /^ {2}#0 {2}\d{4}-\d\d-\d\dT\S+Z {2}SpaceCreated {2}by user:usr_alice {2}causation=- {2}correlation=corr-Alpha {2}\{/,
    );
    expect(lines[1]).toContain(
      `{"spaceId":"${first}","name":"Alpha","slug":"alpha","description":"","color":"#1e88e5"}`,
    );
    expect(lines[2]).toContain('#1');
    expect(lines[2]).toContain('SpaceRenamed  by user:usr_alice  causation=cause-1  correlation=corr-rename');
    expect(lines[2]).toContain(`{"spaceId":"${first}","name":"Alpha 2"}`);

    await platform.log.history(`space-${first}`);
    expect(platform.output.lines.splice(0)).toEqual(lines);
  });

  it('prints raw envelopes as JSON lines with --json', async () => {
    const platform = await boot();
    const { first } = await seed(platform.eventStore);
    await platform.log.history(first, { json: true });
    const envelopes = platform.output.lines.map(
      (line) =>
        JSON.parse(line) as {
          revision: number;
          type: string;
          streamId: string;
          metadata: { correlationId: string };
        },
    );
    expect(envelopes.map((envelope) => [envelope.revision, envelope.type, envelope.streamId])).toEqual([
      [0, 'SpaceCreated', `space-${first}`],
      [1, 'SpaceRenamed', `space-${first}`],
    ]);
    expect(envelopes[1]!.metadata.correlationId).toBe('corr-rename');
  });

  it('fails with a clear message for a stream without events', async () => {
    const platform = await boot();
    await expect(platform.log.history('agt_unknown')).rejects.toThrow(CliError);
    await expect(platform.log.history('agt_unknown')).rejects.toThrow(
      "no events in stream 'agent-agt_unknown'",
    );
  });
});

describe('events tail', () => {
  it('hands every line to a pipe that reads slowly before it exits (auditors pipe the log)', async () => {
    const platform = await boot();
    const spaceId = `spc_${randomUUID().replace(/-/g, '')}`;
    const total = 3000;
    let revision = -1;
    for (let batch = 0; batch < total / 500; batch++) {
      const events = Array.from({ length: 500 }, (_, i) =>
        batch === 0 && i === 0
          ? event(
              'SpaceCreated',
              { spaceId, name: 'Piped', slug: 'piped', description: '', color: '#1e88e5' },
              'c',
            )
          : event('SpaceColorChanged', { spaceId, color: '#000000' }, `c-${batch}-${i}`),
      );
      await platform.eventStore.appendToStream(
        spaceStreamId(spaceId),
        events,
        revision < 0 ? 'no_stream' : revision,
      );
      revision += events.length;
    }
    const cli = fileURLToPath(new URL('../dist/apps/cli/src/main.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'events', 'tail', '--from', '0'], {
      env: { DATA_DIR: platform.config.dataDir, LOG_LEVEL: 'silent', PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // A slow reader: the pipe fills and the CLI must wait for it rather than exit with lines unwritten.
    child.stdout.pause();
    await waitUntil(() => child.stdout.readableLength >= child.stdout.readableHighWaterMark, 15_000);
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(text.trimEnd().split('\n')).toHaveLength(total);
  });

  it('prints the last events, the events after a position, and follows new ones until aborted', async () => {
    const platform = await boot();
    const { second } = await seed(platform.eventStore);

    await platform.log.tail({ limit: 2 });
    const last = platform.output.lines.splice(0);
    expect(last).toHaveLength(2);
    expect(last[0]).toMatch(
      new RegExp(
        `^ +4 {2}\\S+Z {2}space-spc_\\w+ {2}SpaceCreated {2}user:usr_alice {2}correlation=corr-Gamma$`,
      ),
    );
    expect(last[1]).toMatch(/^ +5 .* SpaceDeleted {2}user:usr_alice {2}correlation=corr-delete$/);

    await platform.log.tail({ from: 2 });
    expect(platform.output.lines.splice(0).map((line) => line.trim().split(/\s+/)[0])).toEqual([
      '3',
      '4',
      '5',
    ]);
    await platform.log.tail({ from: 0, limit: 1 });
    expect(platform.output.lines.splice(0)).toHaveLength(1);

    const controller = new AbortController();
    const following = platform.log.tail({ limit: 0, follow: true, signal: controller.signal });
    await platform.eventStore.appendToStream(
      spaceStreamId(second),
      [event('SpaceColorChanged', { spaceId: second, color: '#000000' }, 'corr-live')],
      0,
    );
    await waitUntil(() => platform.output.lines.length === 1);
    controller.abort();
    await following;
    expect(platform.output.lines[0]).toMatch(
      /^ +6 .* SpaceColorChanged {2}user:usr_alice {2}correlation=corr-live$/,
    );
  });
});

describe('projections status', () => {
  it('reports every projector from the stores, before and after the projections ran, with the lease holder', async () => {
    const platform = await boot();
    await seed(platform.eventStore);

    await platform.admin.printStatus();
    let lines = platform.output.lines.splice(0);
    expect(lines[0]).toBe('log head: 5');
    expect(lines[1]).toMatch(
      /^PROJECTION +STATE +VERSION +LIVE GEN +CHECKPOINT +LAG +LAG AGE +BUILDING +LEASE HOLDER +EXPIRES$/,
    );
    expect(lines.slice(2).map((line) => line.split(' ')[0])).toEqual(platform.projectors.map((p) => p.name));
    expect(rowOf(lines, 'spaces')).toEqual([
      'spaces',
      'not started',
      spacesVersion(platform),
      '-',
      '0',
      '5',
      expect.stringMatching(/s$/),
      '-',
      '-',
      '-',
    ]);

    await project(platform);
    await platform.admin.printStatus();
    lines = platform.output.lines.splice(0);
    expect(rowOf(lines, 'spaces')).toEqual([
      'spaces',
      'up to date',
      spacesVersion(platform),
      '1',
      // The 5 events, and the owners the legacy-space-owner process recorded for the 2 Spaces from before members.
      '7',
      '0',
      '0.0s',
      '-',
      '-',
      '-',
    ]);

    const holder = new ProjectionRunner(platform.eventStore, platform.readStore, platform.projectors, {
      owner: 'api-host/42/cafe',
    });
    runners.push(holder);
    holder.start();
    await holder.caughtUp(10_000);
    await platform.admin.printStatus();
    const row = rowOf(platform.output.lines.splice(0), 'spaces');
    expect(row.slice(0, 9)).toEqual([
      'spaces',
      'up to date',
      spacesVersion(platform),
      '1',
      '7',
      '0',
      '0.0s',
      '-',
      'api-host/42/cafe',
    ]);
    expect(row[9]).toMatch(/^in \d+\.\ds$/);

    await platform.admin.printStatus({ json: true });
    const reports = platform.output.lines.map(
      (line) => JSON.parse(line) as { name: string; state: string; lease: { owner: string } | null },
    );
    expect(reports.find((report) => report.name === 'spaces')).toMatchObject({
      state: 'up to date',
      lease: { owner: 'api-host/42/cafe' },
    });
  });
});

describe('projections rebuild', () => {
  const documents = (readStore: ReadStore, generation: number) =>
    readStore.readerAt<StoredDocument>('spaces', { name: 'spaces', generation }).find({}, { limit: 100 });

  it('rebuilds in this process when nobody holds the lease: a new live generation with the same documents', async () => {
    const platform = await boot();
    await seed(platform.eventStore);
    await project(platform);
    const before = (await documents(platform.readStore, 1)).data;
    expect(before).toHaveLength(2);

    const result = await platform.admin.rebuild('spaces', { pollMs: 20, retireGraceMs: 50 });

    expect(result).toEqual({ name: 'spaces', previousGeneration: 1, generation: 2, builtBy: 'this-process' });
    expect(platform.output.lines).toEqual(['switched to generation 2']);
    expect(platform.output.notes).toContain("nobody holds 'spaces': rebuilding in this process");
    expect(platform.output.notes).toContain('retired generation 1');
    expect(await platform.readStore.projection('spaces')).toMatchObject({
      liveGeneration: 2,
      buildingGeneration: null,
      rebuildRequested: false,
    });
    expect((await documents(platform.readStore, 2)).data).toEqual(before);
    expect((await platform.readStore.reader<StoredDocument>('spaces').find({}, { limit: 100 })).data).toEqual(
      before,
    );
    expect(await platform.readStore.checkpoint({ name: 'spaces', generation: 2 })).toBe(7);
    expect((await documents(platform.readStore, 1)).data).toEqual([]);
    expect(await platform.readStore.leaseHolder('projection:spaces')).toBeNull();
  });

  it('asks the lease holder to rebuild and waits until it has switched generations', async () => {
    const platform = await boot();
    await seed(platform.eventStore);
    const holder = new ProjectionRunner(
      platform.eventStore,
      platform.readStore,
      platform.projectors.filter((projector) => projector.name === 'spaces'),
      { owner: 'api-host/42/beef', leaseTtlMs: 300, retireGraceMs: 50 },
    );
    runners.push(holder);
    holder.start();
    await holder.caughtUp(10_000);
    const before = (await documents(platform.readStore, 1)).data;

    const result = await platform.admin.rebuild('spaces', { pollMs: 20 });

    expect(result).toEqual({ name: 'spaces', previousGeneration: 1, generation: 2, builtBy: 'lease-holder' });
    expect(platform.output.notes[0]).toBe(
      "'spaces' is held by api-host/42/beef: rebuild requested, waiting for it to switch generations",
    );
    expect(platform.output.lines).toEqual(['switched to generation 2']);
    expect(holder.status()[0]).toMatchObject({ state: 'live', liveGeneration: 2 });
    expect((await documents(platform.readStore, 2)).data).toEqual(before);
    expect(await platform.readStore.leaseHolder('projection:spaces')).toMatchObject({
      owner: 'api-host/42/beef',
    });
    // The holder retires the old generation after its grace period (before the stores close at the end of the test).
    await waitUntil(async () => (await documents(platform.readStore, 1)).data.length === 0);
  });

  it('refuses an unknown projection by name', async () => {
    const platform = await boot();
    await expect(platform.admin.rebuild('nope')).rejects.toThrow(
      /^unknown projection 'nope' \(known: spaces, prompts, agents, users, api-keys, usage, spend-limits, knowledge, knowledge-summary-index, conversations, memory, skills, code-execution, provenance, apps, agent-tool-settings, audit-trail, stored-responses, space-deletion-process, knowledge-owner-deletion-process, knowledge-tag-deletion-process, knowledge-ingestion-process, personal-space-process, legacy-space-owner-process, personal-agent-process, conversation-erasure-process, agent-conversations-deletion-process, memory-erasure-process, memory-proposal-process, agent-memories-deletion-process, skill-owner-deletion-process, sandbox-lifecycle-process, app-allowlist-process, mcp-synced-resources-process, app-oauth-deactivation-process, stored-response-erasure-process, integration-event-relay\)$/,
    );
    expect(await platform.readStore.projection('nope')).toBeNull();
  });
});

describe('the command line (nest-commander)', () => {
  it('parses `events stream <id>` and reports a failing command through the error handler', async () => {
    const platform = await boot();
    const { second } = await seed(platform.eventStore);
    const { CommandFactory, CommandRunnerService } = await import('nest-commander');
    const { CliModule } = await import('../apps/cli/src/cli.module.js');
    const output = capturedOutput();
    const errors: string[] = [];
    const cli = await CommandFactory.createWithoutRunning(
      CliModule.forRoot({ config: platform.config, output }),
      {
        logger: false,
        serviceErrorHandler: (error: Error) => void errors.push(error.message),
      },
    );
    open.push(cli);
    const run = (...args: string[]) => cli.get(CommandRunnerService).run(['node', 'cli', ...args]);

    await run('events', 'stream', second, '--json');
    expect(output.lines.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['SpaceCreated']);

    await run('projections', 'rebuild', 'nope');
    expect(errors).toEqual([expect.stringMatching(/^unknown projection 'nope'/)]);
  });
});

describe('blobs gc (nest-commander)', () => {
  /**
   * One run of the CLI over the platform's stores, as `npm run cli -- …` runs it: what it printed and its errors. A
   * fresh CLI each time, as each process parses once (commander keeps the flags of an earlier parse).
   */
  async function cli(platform: Platform, ...args: string[]) {
    const { CommandFactory, CommandRunnerService } = await import('nest-commander');
    const { CliModule } = await import('../apps/cli/src/cli.module.js');
    const output = capturedOutput();
    const errors: string[] = [];
    const app = await CommandFactory.createWithoutRunning(
      CliModule.forRoot({ config: platform.config, output }),
      {
        logger: false,
        serviceErrorHandler: (error: Error) => void errors.push(error.message),
      },
    );
    open.push(app);
    await app.get(CommandRunnerService).run(['node', 'cli', ...args]);
    return { lines: output.lines, notes: output.notes, errors };
  }

  /** A document added through its command, its content the given blob. */
  async function addDocument(platform: Platform, blob: StoredBlob): Promise<void> {
    const documentId = `doc_${randomUUID().replace(/-/g, '')}`;
    await platform.app.get(AggregateRepository).decide(
      documentStreamId(documentId),
      documentDecider,
      {
        type: 'AddDocument',
        documentId,
        name: 'kept.txt',
        scope: 'agent',
        ownerId: 'agt_owner',
        provider: 'upload',
        content: {
          blobId: blob.id,
          contentHash: blob.id,
          sizeBytes: blob.sizeBytes,
          declaredType: 'text/plain',
        },
        tagIds: [],
      },
      { actor: { kind: 'user', id: 'usr_alice' }, correlationId: 'corr-doc', now: () => new Date() },
    );
  }

  it('removes the blobs no event references, keeps referenced and recent ones, and removes nothing in a dry run', async () => {
    const platform = await boot();
    const blobs = platform.app.get<BlobStore>(BLOB_STORE);
    const referenced = await blobs.put(Buffer.from(`a document's bytes ${randomUUID()}`));
    await addDocument(platform, referenced);
    // An upload whose DocumentAdded was never appended.
    const orphan = await blobs.put(Buffer.from(`abandoned upload ${randomUUID()}`));

    const dryRun = await cli(platform, 'blobs', 'gc', '--dry-run', '--min-age', '0');
    expect(dryRun).toEqual({
      lines: [
        `would remove  ${orphan.id}  ${orphan.sizeBytes} bytes`,
        `dry run, nothing removed: scanned 2 blobs: 1 referenced, 1 to remove (${orphan.sizeBytes} bytes to free), ` +
          '0 kept as stored within the last 0 minutes',
      ],
      notes: [],
      errors: [],
    });
    expect(await blobs.has(orphan.id)).toBe(true);
    expect(await blobs.has(referenced.id)).toBe(true);

    const gc = await cli(platform, 'blobs', 'gc', '--min-age', '0');
    expect(gc).toEqual({
      lines: [
        `removed  ${orphan.id}  ${orphan.sizeBytes} bytes`,
        `scanned 2 blobs: 1 referenced, 1 removed (${orphan.sizeBytes} bytes freed), ` +
          '0 kept as stored within the last 0 minutes',
      ],
      notes: [expect.stringMatching(/^warning: --min-age 0 also removes/)],
      errors: [],
    });
    expect(await blobs.has(orphan.id)).toBe(false);
    expect(await blobs.has(referenced.id)).toBe(true);

    // With the default grace period, bytes just stored (an upload still in flight) stay.
    const inFlight = await blobs.put(Buffer.from(`upload in flight ${randomUUID()}`));
    expect((await cli(platform, 'blobs', 'gc')).lines).toEqual([
      'scanned 2 blobs: 1 referenced, 0 removed (0 bytes freed), 1 kept as stored within the last 60 minutes',
    ]);
    expect(await blobs.has(inFlight.id)).toBe(true);
    expect(await blobs.has(referenced.id)).toBe(true);
  });

  it('refuses a --min-age that is not a whole number of minutes, and removes nothing', async () => {
    const platform = await boot();
    const blobs = platform.app.get<BlobStore>(BLOB_STORE);
    const orphan = await blobs.put(Buffer.from(`abandoned upload ${randomUUID()}`));

    for (const [args, shown] of [
      [['--min-age', 'soon'], 'soon'],
      [['--min-age', '1.5'], '1.5'],
      [['--min-age=-5'], '-5'],
    ] as const) {
      expect(await cli(platform, 'blobs', 'gc', ...args)).toEqual({
        lines: [],
        notes: [],
        errors: [`--min-age expects a whole number >= 0, got '${shown}'`],
      });
    }
    expect(await blobs.has(orphan.id)).toBe(true);
  });
});
