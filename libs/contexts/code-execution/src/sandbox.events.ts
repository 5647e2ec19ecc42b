// A conversation's code sandbox (spec: "Conversation code execution state — tracked per conversation"): one stream
// per conversation, `conversation-sandbox-<conversationId>`. The code a call ran and its output are conversation
// content: sealed with a key of the conversation's group, so deleting the conversation erases them too. Since the
// second shape of CodeRan, the files a run kept (names, paths, sizes, blob ids) are sealed with the run's key as well
// and their bytes are sealed in the blob store; `blobIds` names those sealed blobs (addresses of ciphertext, which
// say nothing of the files) for the blob gc and the erasure. Deleting either message of the turn erases its runs
// (CodeRunsErased: keys destroyed, blobs deleted, the read model drops them).
import type { DomainEvent } from '#kernel';

export type Sealed = string;

export interface SandboxSkill {
  readonly skillId: string;
  readonly name: string;
  readonly version: number;
}

export interface ProducedFile {
  readonly path: string;
  readonly blobId: string;
  readonly sizeBytes: number;
}

type Id = { readonly conversationId: string };

export type SandboxEvent =
  | DomainEvent<
      'SandboxCreated',
      Id & { readonly agentId: string; readonly sandboxId: string; readonly skills: readonly SandboxSkill[] }
    >
  | DomainEvent<
      'SandboxSkillsReplaced',
      Id & { readonly skills: readonly SandboxSkill[]; readonly reason: 'skills_changed' }
    >
  | DomainEvent<
      'CodeRan',
      Id & {
        readonly callId: string;
        readonly messageId: string;
        readonly language: 'python' | 'shell';
        readonly code: Sealed;
        readonly exitCode: number | null;
        readonly durationMs: number;
        readonly timedOut: boolean;
        readonly truncated: boolean;
        readonly killedBy: string | null;
        /** stdout and stderr as the model saw them (capped), sealed. */
        readonly output: Sealed;
        /** The first shape's files, in the clear (empty since `sealedFiles`). */
        readonly files: readonly ProducedFile[];
        /** The turn's answer (the assistant message): deleting it, or `messageId`, erases the run. */
        readonly answerId?: string;
        /** The ProducedFile list as JSON, sealed with the run's key. */
        readonly sealedFiles?: Sealed;
        /** The blobs holding the files' sealed bytes. */
        readonly blobIds?: readonly string[];
        /** Bytes of the files kept (in the clear: a size only), counted by the per-conversation cap. */
        readonly keptBytes?: number;
      }
    >
  | DomainEvent<
      'CodeRunsErased',
      Id & {
        readonly callIds: readonly string[];
        /** The sealed blobs of their files, deleted with them. */
        readonly blobIds: readonly string[];
        /** The message whose deletion erased them; null when the conversation was deleted. */
        readonly messageId: string | null;
        readonly reason: 'message_deleted' | 'conversation_deleted';
      }
    >
  | DomainEvent<
      'SandboxDestroyed',
      Id & { readonly reason: 'idle_timeout' | 'hard_timeout' | 'conversation_deleted' }
    >;

export interface SandboxRun {
  readonly callId: string;
  readonly messageId: string;
  readonly answerId: string | null;
  /** The sealed blobs of its files (erasure deletes them). */
  readonly blobIds: readonly string[];
  readonly erased: boolean;
}

export interface SandboxState {
  readonly status: 'absent' | 'active' | 'destroyed';
  readonly sandboxId: string | null;
  readonly callIds: readonly string[];
  readonly runs: readonly SandboxRun[];
  /** Files kept (stored in the blob store) by the conversation's runs so far, and their bytes: the caps count them. */
  readonly keptFiles: number;
  readonly keptBytes: number;
}

/** What a run's kept files add to the conversation's counts (sealed runs name their blobs and bytes in the clear). */
const countKept = (
  state: SandboxState,
  data: { files: readonly ProducedFile[]; blobIds?: readonly string[]; keptBytes?: number },
): Pick<SandboxState, 'keptFiles' | 'keptBytes'> => ({
  keptFiles: state.keptFiles + data.files.length + (data.blobIds?.length ?? 0),
  keptBytes: state.keptBytes + (data.keptBytes ?? data.files.reduce((sum, file) => sum + file.sizeBytes, 0)),
});

/** The data keys a run's content is sealed with (code and files; output). */
export const runKeyIds = (callId: string): string[] => [callId, `${callId}-out`];

/** The blobs a CodeRan names: the sealed ones, or the first shape's files in the clear. */
export const blobIdsOfRun = (data: {
  files: readonly ProducedFile[];
  blobIds?: readonly string[];
}): string[] => [...new Set([...(data.blobIds ?? []), ...data.files.map((file) => file.blobId)])];

export const sandboxStreamId = (conversationId: string): string => `conversation-sandbox-${conversationId}`;

export const evolveSandbox = (state: SandboxState, event: SandboxEvent): SandboxState => {
  switch (event.type) {
    case 'SandboxCreated':
      return { ...state, status: 'active', sandboxId: event.data.sandboxId };
    case 'SandboxSkillsReplaced':
      return state;
    case 'CodeRan':
      return {
        ...state,
        callIds: [...state.callIds, event.data.callId],
        ...countKept(state, event.data),
        runs: [
          ...state.runs,
          {
            callId: event.data.callId,
            messageId: event.data.messageId,
            answerId: event.data.answerId ?? null,
            // Only sealed blobs are the run's own: a first-shape run's plain blob may share its content address
            // with other data (a Skill file copied to /work), so erasure leaves it to the blob gc, which knows every
            // reference.
            blobIds: event.data.blobIds ?? [],
            erased: false,
          },
        ],
      };
    case 'CodeRunsErased': {
      const erased = new Set(event.data.callIds);
      return {
        ...state,
        runs: state.runs.map((run) => (erased.has(run.callId) ? { ...run, erased: true } : run)),
      };
    }
    case 'SandboxDestroyed':
      return { ...state, status: 'destroyed' };
  }
};

/** The runs a message's deletion erases (those of its turn: its user message or its answer), or all (null). */
export const runsToErase = (state: SandboxState, messageId: string | null): SandboxRun[] =>
  state.runs.filter(
    (run) => !run.erased && (messageId === null || run.messageId === messageId || run.answerId === messageId),
  );

export const initialSandboxState = (): SandboxState => ({
  status: 'absent',
  sandboxId: null,
  callIds: [],
  runs: [],
  keptFiles: 0,
  keptBytes: 0,
});
