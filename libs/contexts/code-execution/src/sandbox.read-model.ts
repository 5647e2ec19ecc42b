// The conversation sandboxes read model (GET …/conversation/{conversationId}/sandbox), built by
// projections/code-execution: one document per conversation that ran code, with its calls (code, output and, since
// the second shape of CodeRan, the files sealed); an erased call (its message deleted) is dropped.
import { defineReadModel } from '#eventsourcing';
import type { ProducedFile, Sealed, SandboxSkill } from './sandbox.events.js';

export interface SandboxCallView {
  readonly callId: string;
  readonly messageId: string;
  readonly language: 'python' | 'shell';
  readonly code: Sealed;
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly killedBy: string | null;
  readonly output: Sealed;
  /** The first shape's files in the clear; later calls have `sealedFiles`. */
  readonly files: readonly ProducedFile[];
  readonly answerId?: string;
  readonly sealedFiles?: Sealed;
  readonly blobIds?: readonly string[];
  readonly at: string;
}

export interface SandboxView {
  /** The conversation id. */
  readonly id: string;
  readonly agentId: string;
  readonly sandboxId: string;
  readonly state: 'active' | 'destroyed';
  readonly skills: readonly SandboxSkill[];
  readonly calls: readonly SandboxCallView[];
  readonly createdAt: string;
  readonly lastUsedAt: string;
  readonly destroyedAt: string | null;
  readonly destroyReason: string | null;
  /** Why the Skills files were last replaced, and when. */
  readonly rebuiltAt: string | null;
}

export const CONVERSATION_SANDBOXES = 'conversation_sandboxes';

export const SANDBOXES_READ_MODEL = defineReadModel<SandboxView>({
  name: CONVERSATION_SANDBOXES,
  projection: 'code-execution',
  indexes: [{ fields: ['agentId', 'state'] }],
});
