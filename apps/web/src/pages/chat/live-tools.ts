// The tools a streamed answer calls, as its `tool_call` and `tool_result` events tell them: a call runs until its
// result arrives (the chat shows a running code call's code meanwhile); a call set to ask first waits for the person
// (`tool_approval_required`), and the answer keeps it to show the prompt; an App the person has not connected
// (`tool_auth_required`) is kept to offer its Connect button. While a call runs its server may report progress and
// log lines (shown on the call) and ask the person a question (the answer keeps it to show the form).
import { api } from '../../api';
import type { ApprovalAsked, ChatMessage, LiveToolCall, ToolCallView } from './types';

const LOG_LINES_KEPT = 5;

/** An App the person must connect (`tool_auth_required`), once per App. */
export function withConnectAsked(answer: ChatMessage, body: Record<string, unknown>): ChatMessage {
  const appId = String(body.appId);
  if (answer.connectApps?.some((asked) => asked.appId === appId)) return answer;
  const asked = { appId, connectUrl: String(body.connectUrl) };
  return { ...answer, connectApps: [...(answer.connectApps ?? []), asked] };
}

export function withApprovalAsked(answer: ChatMessage, body: Record<string, unknown>): ChatMessage {
  const asked = {
    callId: String(body.callId),
    name: String(body.name),
    arguments: String(body.arguments ?? ''),
  };
  return { ...answer, approvals: [...(answer.approvals ?? []), asked] };
}

/** A streamed `tool_result`'s view, its result (JSON text in the stream) read as the stored one is. */
function viewOf(view: unknown): { view?: ToolCallView } {
  const { appId, uri, result } = (view ?? {}) as Record<string, unknown>;
  if (typeof appId !== 'string' || typeof uri !== 'string') return {};
  let parsed: unknown = null;
  try {
    parsed = typeof result === 'string' ? JSON.parse(result) : null;
  } catch {
    // A result that is no JSON is given as none.
  }
  return { view: { appId, uri, result: parsed } };
}

export function withTool(
  answer: ChatMessage,
  event: 'tool_call' | 'tool_result',
  body: Record<string, unknown>,
): ChatMessage {
  const tools = answer.tools ?? [];
  const id = String(body.id);
  if (event === 'tool_call') {
    const call: LiveToolCall = { id, name: String(body.name), arguments: String(body.arguments ?? '') };
    return { ...answer, tools: [...tools, call] };
  }
  return {
    ...answer,
    tools: tools.map((call) =>
      call.id === id ? { ...call, ok: body.ok === true, ...viewOf(body.view) } : call,
    ),
  };
}

/**
 * The approvals a conversation waits for while its answer is written elsewhere (the page was reloaded mid-turn): the
 * ones asked before and those the server lists now (GET …/tool-calls), each once. A failed listing asks nothing new.
 */
export async function waitingApprovals(
  route: string,
  asked: readonly ApprovalAsked[],
): Promise<readonly ApprovalAsked[]> {
  const listed = await api<{ data: ApprovalAsked[] }>('GET', `${route}/tool-calls`).catch(() => null);
  const fresh = (listed?.data ?? []).filter((call) => !asked.some((known) => known.callId === call.callId));
  return fresh.length > 0
    ? [...asked, ...fresh.map(({ callId, name, arguments: args }) => ({ callId, name, arguments: args }))]
    : asked;
}

/** The answer being written elsewhere, shown only for the approvals it waits for. */
export const answerAwaiting = (approvals: readonly ApprovalAsked[]): ChatMessage => ({
  id: 'pending-answer',
  role: 'assistant',
  content: '',
  citations: [],
  streaming: true,
  approvals,
});

/** A running call's progress (`tool_progress`) or log line (`tool_log`), on the call its `id` names. */
export function withToolNews(
  answer: ChatMessage,
  event: 'tool_progress' | 'tool_log',
  body: Record<string, unknown>,
): ChatMessage {
  const id = String(body.id);
  const news = (call: LiveToolCall): LiveToolCall =>
    event === 'tool_progress'
      ? {
          ...call,
          progress: {
            progress: Number(body.progress),
            ...(typeof body.total === 'number' ? { total: body.total } : {}),
            ...(typeof body.message === 'string' ? { message: body.message } : {}),
          },
        }
      : { ...call, logs: [...(call.logs ?? []), String(body.text)].slice(-LOG_LINES_KEPT) };
  return { ...answer, tools: (answer.tools ?? []).map((call) => (call.id === id ? news(call) : call)) };
}

/** A tool's question for the person (`tool_elicitation_required`): the answer keeps it to show the form. */
export function withElicitationAsked(answer: ChatMessage, body: Record<string, unknown>): ChatMessage {
  const call = answer.tools?.find((tool) => tool.id === String(body.id));
  const asked = {
    elicitationId: String(body.elicitationId),
    name: call?.name ?? '',
    message: String(body.message ?? ''),
    requestedSchema: (body.requestedSchema ?? {}) as Record<string, unknown>,
  };
  return { ...answer, elicitations: [...(answer.elicitations ?? []), asked] };
}
