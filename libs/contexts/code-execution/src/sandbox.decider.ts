// The sandbox's commands and the pure decision over each: a sandbox is created while there is none, records its
// runs, erases the runs of a deleted message (or all, with the conversation) once, and is destroyed once.
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveSandbox,
  initialSandboxState,
  runsToErase,
  type SandboxEvent,
  type SandboxState,
} from './sandbox.events.js';

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
      readonly type: 'EraseCodeRuns';
      readonly data: { readonly conversationId: string; readonly messageId: string | null };
    }
  | {
      readonly type: 'RecordSandboxDestroyed';
      readonly data: Extract<SandboxEvent, { type: 'SandboxDestroyed' }>['data'];
    };

type SandboxOf<Type extends SandboxCommand['type']> = Extract<SandboxCommand, { readonly type: Type }>;

const recordSandboxCreated = (
  { data }: SandboxOf<'RecordSandboxCreated'>,
  state: SandboxState,
): SandboxEvent[] => (state.status === 'active' ? [] : [{ type: 'SandboxCreated', data }]);

const recordSkillsReplaced = (
  { data }: SandboxOf<'RecordSkillsReplaced'>,
  state: SandboxState,
): SandboxEvent[] => (state.status === 'active' ? [{ type: 'SandboxSkillsReplaced', data }] : []);

const recordCodeRun = ({ data }: SandboxOf<'RecordCodeRun'>, state: SandboxState): SandboxEvent[] =>
  state.callIds.includes(data.callId) ? [] : [{ type: 'CodeRan', data }];

function eraseCodeRuns({ data }: SandboxOf<'EraseCodeRuns'>, state: SandboxState): SandboxEvent[] {
  const runs = runsToErase(state, data.messageId);
  if (runs.length === 0) return [];
  return [
    {
      type: 'CodeRunsErased',
      data: {
        conversationId: data.conversationId,
        callIds: runs.map((run) => run.callId),
        blobIds: [...new Set(runs.flatMap((run) => run.blobIds))],
        messageId: data.messageId,
        reason: data.messageId === null ? 'conversation_deleted' : 'message_deleted',
      },
    },
  ];
}

const recordSandboxDestroyed = (
  { data }: SandboxOf<'RecordSandboxDestroyed'>,
  state: SandboxState,
): SandboxEvent[] => (state.status === 'active' ? [{ type: 'SandboxDestroyed', data }] : []);

export const sandboxDecider: Decider<SandboxState, SandboxCommand, SandboxEvent> = {
  initialState: initialSandboxState,
  evolve: evolveSandbox,
  decide: decideByType<SandboxState, SandboxCommand, SandboxEvent>({
    RecordSandboxCreated: recordSandboxCreated,
    RecordSkillsReplaced: recordSkillsReplaced,
    RecordCodeRun: recordCodeRun,
    EraseCodeRuns: eraseCodeRuns,
    RecordSandboxDestroyed: recordSandboxDestroyed,
  }),
};
