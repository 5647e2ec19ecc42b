// A conversation's code sandbox (spec: "Conversation code execution state — tracked per conversation"): one stream
// per conversation, `conversation-sandbox-<conversationId>`. The code a call ran and its output are conversation
// content: sealed with a key of the conversation's group, so deleting the conversation erases them too.
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
        readonly files: readonly ProducedFile[];
      }
    >
  | DomainEvent<
      'SandboxDestroyed',
      Id & { readonly reason: 'idle_timeout' | 'hard_timeout' | 'conversation_deleted' }
    >;

export interface SandboxState {
  readonly status: 'absent' | 'active' | 'destroyed';
  readonly sandboxId: string | null;
  readonly callIds: readonly string[];
  /** Files kept (copied to the blob store) by the conversation's runs so far, and their bytes: the caps count them. */
  readonly keptFiles: number;
  readonly keptBytes: number;
}

/** What a run's kept files add to the conversation's counts. */
const countKept = (
  state: SandboxState,
  files: readonly ProducedFile[],
): Pick<SandboxState, 'keptFiles' | 'keptBytes'> => ({
  keptFiles: state.keptFiles + files.length,
  keptBytes: state.keptBytes + files.reduce((sum, file) => sum + file.sizeBytes, 0),
});

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
        ...countKept(state, event.data.files),
      };
    case 'SandboxDestroyed':
      return { ...state, status: 'destroyed' };
  }
};

export type SandboxCommand =
  | {
      readonly type: 'RecordSandboxCreated';
      readonly data: Extract<SandboxEvent, { type: 'SandboxCreated' }>['data'];
    }
  | {
      readonly type: 'RecordSkillsReplaced';
      readonly data: Extract<SandboxEvent, { type: 'SandboxSkillsReplaced' }>['data'];
    }
  | { readonly type: 'RecordCodeRun'; readonly data: Extract<SandboxEvent, { type: 'CodeRan' }>['data'] }
  | {
      readonly type: 'RecordSandboxDestroyed';
      readonly data: Extract<SandboxEvent, { type: 'SandboxDestroyed' }>['data'];
    };

/** The sandbox decider: a sandbox is created while there is none, records its runs, and is destroyed once. */
export const sandboxDecider = {
  initialState: (): SandboxState => ({
    status: 'absent',
    sandboxId: null,
    callIds: [],
    keptFiles: 0,
    keptBytes: 0,
  }),
  evolve: evolveSandbox,
  decide: (command: SandboxCommand, state: SandboxState): SandboxEvent[] => {
    switch (command.type) {
      case 'RecordSandboxCreated':
        return state.status === 'active' ? [] : [{ type: 'SandboxCreated', data: command.data }];
      case 'RecordSkillsReplaced':
        return state.status === 'active' ? [{ type: 'SandboxSkillsReplaced', data: command.data }] : [];
      case 'RecordCodeRun':
        return state.callIds.includes(command.data.callId) ? [] : [{ type: 'CodeRan', data: command.data }];
      case 'RecordSandboxDestroyed':
        return state.status === 'active' ? [{ type: 'SandboxDestroyed', data: command.data }] : [];
    }
  },
};
