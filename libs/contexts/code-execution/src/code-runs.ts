// A conversation's sandbox as the runtime uses it: a long-running service (a run carries the turn's AbortSignal and
// waits for a run slot), not a command. It creates the sandbox on first use with the Agent's Skills' reference files
// (active versions, under /skills/<skill>/…), runs the code, and stores the files the code produced in the blob store
// sealed with the run's key (capped per run and per conversation). What it records goes through commands
// (RecordSandboxCreated, RecordCodeRun: their handlers seal and append through SandboxRepository); destruction
// (timeouts, the conversation's deletion) is the DestroySandbox command, which calls `release` once it is recorded.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import type { AgentView } from '#agents';
import { newId, type PlatformConfig, PLATFORM_CONFIG } from '#kernel';
import { AggregateRepository, ReadYourWritesBus, type CommandContext } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { CODE_SANDBOX, type CodeSandbox, type RunRequest, type RunResult } from '#sandbox';
import { AvailableSkills } from '#skills';
import { RecordCodeRun } from './commands/record-code-run/record-code-run.command.js';
import { RecordSandboxCreated } from './commands/record-sandbox-created/record-sandbox-created.command.js';
import { RunSlots } from './run-slots.js';
import {
  sandboxStreamId,
  type ProducedFile,
  type SandboxSkill,
  type SandboxState,
} from './sandbox.events.js';
import { sandboxDecider } from './sandbox.decider.js';
import { SANDBOXES_READ_MODEL } from './sandbox.read-model.js';

/** A produced file larger than this is listed but not kept. */
const KEEP_FILE_BYTES = 5 * 1024 * 1024;
const OUTPUT_CHARS = 8_000;

export interface CodeRun {
  readonly result: RunResult;
  readonly files: readonly ProducedFile[];
}

@Injectable()
export class CodeRuns implements OnModuleDestroy {
  /** When each active sandbox of this process was created (the hard timeout). */
  private readonly created = new Map<string, { conversationId: string; at: number }>();
  /** Runs at once (in all, per user), the rest queued. */
  readonly slots: RunSlots;

  constructor(
    @Inject(CODE_SANDBOX) readonly sandbox: CodeSandbox,
    private readonly skills: AvailableSkills,
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    private readonly writes: ReadYourWritesBus,
    private readonly cipher: ContentCipher,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(PLATFORM_CONFIG) readonly config: PlatformConfig,
  ) {
    this.slots = new RunSlots({
      global: config.sandbox.maxConcurrentRuns,
      perUser: config.sandbox.maxRunsPerUser,
      maxQueued: config.sandbox.maxQueuedRuns,
      maxWaitMs: config.sandbox.wallTimeoutMs,
    });
  }

  /**
   * The sandboxes this process made go with it (their /work is a mount that would outlive it); nothing is lost, as a
   * process makes a conversation's sandbox afresh on its first run anyway.
   */
  async onModuleDestroy(): Promise<void> {
    for (const sandboxId of this.created.keys()) await this.sandbox.destroy(sandboxId).catch(() => undefined);
    this.created.clear();
  }

  sandboxIdOf(conversationId: string): string {
    return `sbx-${conversationId}`;
  }

  async run(
    agent: AgentView,
    conversationId: string,
    turn: { readonly messageId: string; readonly answerId: string },
    request: RunRequest,
    signal: AbortSignal,
    context: CommandContext,
    /** Whose run it is (the per-user limit counts users, not their API keys). */
    userId: string,
  ): Promise<CodeRun> {
    const sandboxId = this.sandboxIdOf(conversationId);
    // The stream's state (is the sandbox active, what it kept so far) decides whether to make it and what to keep.
    const { state } = await this.aggregates.load(sandboxStreamId(conversationId), sandboxDecider);
    if (state.status !== 'active' || !this.created.has(sandboxId)) {
      const { files, skills } = await this.skillFiles(agent);
      await this.sandbox.create(sandboxId, files);
      this.created.set(sandboxId, { conversationId, at: Date.now() });
      await this.bus.execute(new RecordSandboxCreated(conversationId, agent.id, sandboxId, skills, context));
    }
    const before = new Map(
      (await this.sandbox.listFiles(sandboxId)).map((file) => [file.path, file.sizeBytes]),
    );
    const ran = await this.slots.withSlot(userId, signal, () => this.sandbox.run(sandboxId, request, signal));
    const callId = newId('run');
    const { files, notKept } = await this.keepFiles(sandboxId, before, state, callId, conversationId);
    const result = notKept
      ? { ...ran, stderr: `${ran.stderr}${ran.stderr && !ran.stderr.endsWith('\n') ? '\n' : ''}${notKept}\n` }
      : ran;
    const output = `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`.slice(0, OUTPUT_CHARS);
    await this.writes.send(
      new RecordCodeRun(
        {
          conversationId,
          callId,
          messageId: turn.messageId,
          answerId: turn.answerId,
          language: request.language,
          code: request.code,
          output,
          exitCode: result.exitCode,
          durationMs: result.durationMs,
          timedOut: result.timedOut,
          truncated: result.truncated,
          killedBy: result.killedBy,
          files,
        },
        context,
      ),
      [SANDBOXES_READ_MODEL],
    );
    return { result, files };
  }

  /**
   * Copies the files the run wrote or changed to the blob store, within the caps: at most `maxFilesPerRun` of this
   * run, and the conversation's `maxFilesPerConversation` files and `maxKeptBytesPerConversation` bytes in all
   * (smallest first, so the cap keeps the most files). Says what was left out, or '' when nothing was.
   */
  private async keepFiles(
    sandboxId: string,
    before: ReadonlyMap<string, number>,
    state: Pick<SandboxState, 'keptFiles' | 'keptBytes'>,
    callId: string,
    conversationId: string,
  ): Promise<{ files: ProducedFile[]; notKept: string }> {
    const caps = this.config.sandbox;
    const changed = (await this.sandbox.listFiles(sandboxId))
      .filter((file) => before.get(file.path) !== file.sizeBytes && file.sizeBytes <= KEEP_FILE_BYTES)
      .sort((a, b) => a.sizeBytes - b.sizeBytes || a.path.localeCompare(b.path));
    const files: ProducedFile[] = [];
    let keptFiles = state.keptFiles;
    let keptBytes = state.keptBytes;
    for (const file of changed) {
      if (files.length >= caps.maxFilesPerRun || keptFiles >= caps.maxFilesPerConversation) break;
      if (keptBytes + file.sizeBytes > caps.maxKeptBytesPerConversation) break;
      const bytes = await this.sandbox.readFile(sandboxId, file.path);
      if (!bytes) continue;
      // Sealed with the run's key: the blob store holds ciphertext only, and destroying the key shreds it.
      const stored = await this.blobs.put(await this.cipher.sealBytes(callId, conversationId, bytes));
      files.push({ path: file.path, blobId: stored.id, sizeBytes: bytes.byteLength });
      keptFiles += 1;
      keptBytes += bytes.byteLength;
    }
    const left = changed.length - files.length;
    const notKept =
      left > 0
        ? `[sandbox] ${left} file(s) written by this run were not kept: at most ${caps.maxFilesPerRun} per run, ` +
          `${caps.maxFilesPerConversation} files and ${Math.round(caps.maxKeptBytesPerConversation / 1024 / 1024)} MB ` +
          'per conversation (they stay in /work)'
        : '';
    return { files, notKept };
  }

  /** The Agent's Skills' reference files at their active versions, under /skills/<name>/… . */
  async skillFiles(agent: Pick<AgentView, 'id' | 'spaceId'>) {
    const available = await this.skills.of(agent);
    const files: { path: string; bytes: Uint8Array }[] = [];
    const skills: SandboxSkill[] = [];
    for (const { skill, version } of available) {
      skills.push({ skillId: skill.id, name: skill.name, version: version.number });
      for (const file of version.files) {
        const bytes = await this.blobs.get(file.blobId);
        if (bytes) files.push({ path: `${skill.name}/${file.path}`, bytes });
      }
    }
    return { files, skills };
  }

  /** The sandbox and its files go, once DestroySandbox has recorded why. */
  async release(conversationId: string): Promise<void> {
    await this.sandbox.destroy(this.sandboxIdOf(conversationId));
    this.created.delete(this.sandboxIdOf(conversationId));
  }

  /** The sandboxes idle or too old in this process (the sweeper destroys them). */
  expired(now = Date.now()): { conversationId: string; reason: 'idle_timeout' | 'hard_timeout' }[] {
    const idle = new Set(this.sandbox.idleSandboxes?.(now) ?? []);
    const expired: { conversationId: string; reason: 'idle_timeout' | 'hard_timeout' }[] = [];
    for (const [sandboxId, { conversationId, at }] of this.created) {
      if (now - at > this.config.sandbox.hardTimeoutMs)
        expired.push({ conversationId, reason: 'hard_timeout' });
      else if (idle.has(sandboxId)) expired.push({ conversationId, reason: 'idle_timeout' });
    }
    return expired;
  }
}
