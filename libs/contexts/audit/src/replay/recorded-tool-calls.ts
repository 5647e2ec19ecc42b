// The App tool calls a recorded answer made (its ToolCall* events, arguments and results opened with the answer's key)
// and the tools a replay offers in their place: each answers a call with the result the original call recorded, for
// the same tool and the same arguments, and never calls the App again — a replay acts on nothing outside the platform,
// and a different model is compared on the same tool results. A call the original turn did not make (another tool,
// other arguments) is answered as a tool error saying so; an erased result (its key destroyed) likewise.
import type { EventEnvelope } from '#kernel';
import type { ContentCipher } from '#key-store';
import type { ContextTool, ToolCallEvent, ToolOutcome } from '#conversations';
import { canonicalJson } from '../hash-chain.js';

export interface RecordedToolCall {
  readonly callId: string;
  readonly name: string;
  /** The arguments as the model wrote them; null when erased. */
  readonly arguments: string | null;
  /** Whether it completed; null when it was never made (denied, expired, stopped) or its end was not recorded. */
  readonly ok: boolean | null;
  /** Its result or error; null when erased or never made. */
  readonly content: string | null;
}

type Envelope = EventEnvelope<string, unknown>;
const ofType = <T extends ToolCallEvent['type']>(event: Envelope, type: T) =>
  event.type === type ? (event.data as Extract<ToolCallEvent, { type: T }>['data']) : null;

/** The recorded calls of the answer `answerId`, in the order they were requested. */
export async function recordedToolCalls(
  cipher: ContentCipher,
  events: readonly Envelope[],
  answerId: string,
): Promise<RecordedToolCall[]> {
  const calls: RecordedToolCall[] = [];
  const ends = new Map<string, { ok: boolean; sealed: string }>();
  for (const event of events) {
    const completed = ofType(event, 'ToolCallCompleted');
    if (completed) ends.set(completed.callId, { ok: true, sealed: completed.result });
    const failed = ofType(event, 'ToolCallFailed');
    if (failed) ends.set(failed.callId, { ok: false, sealed: failed.error });
  }
  for (const event of events) {
    const requested = ofType(event, 'ToolCallRequested');
    if (!requested || requested.answerId !== answerId) continue;
    const end = ends.get(requested.callId);
    calls.push({
      callId: requested.callId,
      name: requested.name,
      arguments: await cipher.open(requested.arguments),
      ok: end ? end.ok : null,
      content: end ? await cipher.open(end.sealed) : null,
    });
  }
  return calls;
}

/** JSON arguments compared by value (key order aside); text that is not JSON matches nothing. */
function sameArguments(a: string | null, b: unknown): boolean {
  if (a === null) return false;
  try {
    return canonicalJson(JSON.parse(a)) === canonicalJson(b);
  } catch {
    return false;
  }
}

const refused = (content: string): ToolOutcome => ({ content, ok: false, sources: [] });

/** A tool per name the recorded calls used (tools the replay already offers are left out). */
export function replayedTools(
  calls: readonly RecordedToolCall[],
  offered: ReadonlySet<string>,
): ContextTool[] {
  const used = new Set<RecordedToolCall>();
  const names = [...new Set(calls.map((call) => call.name))].filter((name) => !offered.has(name));
  return names.map((name) => ({
    definition: {
      type: 'function',
      function: {
        name,
        description:
          `An App's tool the recorded answer called: this replay answers with the results it recorded ` +
          `(recorded arguments: ${calls
            .filter((call) => call.name === name)
            .map((call) => call.arguments ?? '(erased)')
            .join('; ')})`.slice(0, 1024),
        parameters: { type: 'object', additionalProperties: true },
      },
    },
    run: (args: unknown): Promise<ToolOutcome> => {
      const same = (call: RecordedToolCall) => call.name === name && sameArguments(call.arguments, args);
      // The next recorded call of these arguments, in order; once all are used, the last again.
      const match = calls.find((call) => same(call) && !used.has(call)) ?? calls.findLast(same);
      if (!match)
        return Promise.resolve(
          refused(
            `This replay reuses recorded results only: the recorded answer did not call ${name} with these ` +
              'arguments, so it is not called.',
          ),
        );
      used.add(match);
      if (match.ok === null)
        return Promise.resolve(refused(`The recorded call of ${name} was not made (it was not approved).`));
      if (match.content === null)
        return Promise.resolve(refused(`The recorded result of ${name} was erased.`));
      return Promise.resolve({ content: match.content, ok: match.ok, sources: [] });
    },
  }));
}
