// A conversation's sandbox as the runtime uses it: created on first use with the Agent's Skills' reference files
// (active versions, under /skills/<skill>/…), runs recorded as events (code and output sealed under the
// conversation's keys), files the code produced stored in the blob store sealed with the run's key (their names and
// paths sealed in the event; capped per run and per conversation), erasure of a deleted turn's runs (keys destroyed,
// blobs deleted), and destruction (timeouts, the conversation's deletion) recorded before the directory goes.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import type { AgentView } from '#agents';
import { SYSTEM_ACTOR, newId, type PlatformConfig, PLATFORM_CONFIG } from '#kernel';
import type { CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import { AggregateRepository, ReadYourWritesBus } from '#eventsourcing';
import { CODE_SANDBOX, type CodeSandbox, type RunRequest, type RunResult } from '#sandbox';
import { AvailableSkills } from '#skills';
import { RunSlots } from './run-slots.js';
import {
  runKeyIds,
  runsToErase,
  sandboxDecider,
  sandboxStreamId,
  type ProducedFile,
  type SandboxCommand,
  type SandboxSkill,
  type SandboxState,
} from './sandbox.events.js';
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
    private readonly sender: ReadYourWritesBus,
    private readonly cipher: ContentCipher,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
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
    const { state } = await this.aggregates.load(sandboxStreamId(conversationId), sandboxDecider);
    if (state.status !== 'active' || !this.created.has(sandboxId)) {
      const { files, skills } = await this.skillFiles(agent);
      await this.sandbox.create(sandboxId, files);
      this.created.set(sandboxId, { conversationId, at: Date.now() });
      await this.record(
        { type: 'RecordSandboxCreated', data: { conversationId, agentId: agent.id, sandboxId, skills } },
        context,
      );
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
    const position = await this.record(
      {
        type: 'RecordCodeRun',
        data: {
          conversationId,
          callId,
          messageId: turn.messageId,
          answerId: turn.answerId,
          language: request.language,
          code: await this.cipher.seal(callId, conversationId, request.code),
          exitCode: result.exitCode,
          durationMs: result.durationMs,
          timedOut: result.timedOut,
          truncated: result.truncated,
          killedBy: result.killedBy,
          output: await this.cipher.seal(`${callId}-out`, conversationId, output),
          files: [],
          sealedFiles: await this.cipher.seal(callId, conversationId, JSON.stringify(files)),
          blobIds: files.map((file) => file.blobId),
          keptBytes: files.reduce((sum, file) => sum + file.sizeBytes, 0),
        },
      },
      context,
    );
    await this.sender.settle(position, [SANDBOXES_READ_MODEL]);
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

  /** Destroys a conversation's sandbox and its files; the reason is in the log first. */
  async destroy(
    conversationId: string,
    reason: 'idle_timeout' | 'hard_timeout' | 'conversation_deleted',
    context: CommandContext = {
      actor: SYSTEM_ACTOR,
      correlationId: `sandbox-${conversationId}`,
      now: () => new Date(),
    },
  ): Promise<void> {
    await this.record({ type: 'RecordSandboxDestroyed', data: { conversationId, reason } }, context);
    await this.sandbox.destroy(this.sandboxIdOf(conversationId));
    this.created.delete(this.sandboxIdOf(conversationId));
  }

  /**
   * Erases the runs of a deleted message's turn (or, with `messageId` null, every run of the conversation): their keys
   * are destroyed and their blobs deleted first, then CodeRunsErased is appended, so a process that dies in between
   * does it again when the process manager replays the deletion; a replay after the append finds nothing to erase.
   */
  async erase(conversationId: string, messageId: string | null, context: CommandContext): Promise<void> {
    const { state } = await this.aggregates.load(sandboxStreamId(conversationId), sandboxDecider);
    const runs = runsToErase(state, messageId);
    if (runs.length === 0) return;
    for (const run of runs) {
      for (const keyId of runKeyIds(run.callId)) await this.keys.destroy(keyId);
      for (const blobId of run.blobIds) await this.blobs.delete(blobId);
    }
    await this.record({ type: 'EraseCodeRuns', data: { conversationId, messageId } }, context);
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

  async record(command: SandboxCommand, context: CommandContext): Promise<number> {
    const { position } = await this.aggregates.decide(
      sandboxStreamId(command.data.conversationId),
      sandboxDecider,
      command,
      context,
    );
    return position;
  }
}
