// The sandbox write repository: what the command handlers hand to a conversation's sandbox stream. A run's code,
// output and kept-file list are sealed under the conversation's keys on the way in; erasing runs destroys their keys
// and deletes their blobs before CodeRunsErased is appended (a process that dies in between does it again when the
// process manager replays the deletion; a replay after the append finds nothing to erase). It serves no reads.
import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { AggregateRepository, type CommandContext } from '#eventsourcing';
import { ContentCipher, KEY_STORE, type KeyStore } from '#key-store';
import { runKeyIds, runsToErase, sandboxStreamId, type ProducedFile } from './sandbox.events.js';
import { sandboxDecider, type SandboxCommand } from './sandbox.decider.js';

/** A run as the sandbox answered it, in the clear: sealed here before it is recorded. */
export interface RunRecord {
  readonly conversationId: string;
  readonly callId: string;
  readonly messageId: string;
  readonly answerId: string;
  readonly language: 'python' | 'shell';
  readonly code: string;
  readonly output: string;
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly killedBy: string | null;
  /** The files kept (their bytes already sealed in the blob store with the run's key). */
  readonly files: readonly ProducedFile[];
}

@Injectable()
export class SandboxRepository {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly cipher: ContentCipher,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {}

  async decide(command: SandboxCommand, context: CommandContext): Promise<number> {
    const { position } = await this.aggregates.decide(
      sandboxStreamId(command.data.conversationId),
      sandboxDecider,
      command,
      context,
    );
    return position;
  }

  /** Records a run, its code, output and file list sealed (the code and the files with the run's key). */
  async recordRun(run: RunRecord, context: CommandContext): Promise<number> {
    const { conversationId, callId, files } = run;
    return this.decide(
      {
        type: 'RecordCodeRun',
        data: {
          conversationId,
          callId,
          messageId: run.messageId,
          answerId: run.answerId,
          language: run.language,
          code: await this.cipher.seal(callId, conversationId, run.code),
          exitCode: run.exitCode,
          durationMs: run.durationMs,
          timedOut: run.timedOut,
          truncated: run.truncated,
          killedBy: run.killedBy,
          output: await this.cipher.seal(`${callId}-out`, conversationId, run.output),
          files: [],
          sealedFiles: await this.cipher.seal(callId, conversationId, JSON.stringify(files)),
          blobIds: files.map((file) => file.blobId),
          keptBytes: files.reduce((sum, file) => sum + file.sizeBytes, 0),
        },
      },
      context,
    );
  }

  /**
   * Erases the runs of a deleted message's turn (or, with `messageId` null, every run of the conversation): their
   * keys destroyed and their blobs deleted first, then CodeRunsErased appended.
   */
  async erase(conversationId: string, messageId: string | null, context: CommandContext): Promise<number> {
    const { state } = await this.aggregates.load(sandboxStreamId(conversationId), sandboxDecider);
    const runs = runsToErase(state, messageId);
    if (runs.length === 0) return 0;
    for (const run of runs) {
      for (const keyId of runKeyIds(run.callId)) await this.keys.destroy(keyId);
      for (const blobId of run.blobIds) await this.blobs.delete(blobId);
    }
    return this.decide({ type: 'EraseCodeRuns', data: { conversationId, messageId } }, context);
  }
}
