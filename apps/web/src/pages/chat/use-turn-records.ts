// What the conversation's routes record beside its messages: the code its turns ran (GET …/sandbox: code, output,
// files, each linked to the question that asked for it) and where the model's view of the history was compacted
// (GET …/messages' `compaction`, with its summary). Read again whenever a turn has settled.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api';
import type { ChatMessage } from './types';

export interface CodeRun {
  readonly callId: string;
  /** The question the run answered. */
  readonly messageId: string;
  readonly language: string;
  readonly code: string;
  readonly output: string | null;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  readonly files: readonly { path: string; sizeBytes: number }[];
}

export interface Compaction {
  readonly throughMessageId: string;
  readonly throughOffset: number;
  readonly summary: string | null;
}

export interface TurnRecords {
  readonly runs: readonly CodeRun[];
  readonly compaction: Compaction | null;
}

const NONE: TurnRecords = { runs: [], compaction: null };

/** `base`: the Agent's conversation route. */
export function useTurnRecords(
  base: string,
  conversationId: string | null,
  messages: readonly ChatMessage[],
  /** Whether the Agent may run code: an Agent that cannot has no sandbox to ask about. */
  runsCode: boolean,
): TurnRecords {
  const [records, setRecords] = useState<TurnRecords>(NONE);
  const last = messages.at(-1);
  // A settled turn: its stored answer (not the streamed one) is the last message.
  const settled = last && !last.streaming && !last.id.startsWith('pending') ? last.id : null;
  useEffect(() => {
    if (!conversationId) return setRecords(NONE);
    let current = true;
    const route = `${base}/${conversationId}`;
    void Promise.all([
      runsCode
        ? api<{ calls: CodeRun[] }>('GET', `${route}/sandbox`).then(
            (sandbox) => sandbox.calls,
            // No code ran in the conversation yet (or its sandbox is gone with it).
            (error: unknown) =>
              error instanceof ApiError && error.status === 404 ? [] : Promise.reject(error),
          )
        : [],
      api<{ compaction: Compaction | null }>('GET', `${route}/messages?limit=1`).then(
        (page) => page.compaction,
      ),
    ]).then(
      ([runs, compaction]) => current && setRecords({ runs, compaction }),
      () => current && setRecords(NONE),
    );
    return () => {
      current = false;
    };
  }, [base, conversationId, settled, runsCode]);
  return records;
}
