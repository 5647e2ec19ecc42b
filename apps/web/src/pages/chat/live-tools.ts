// The tools a streamed answer calls, as its `tool_call` and `tool_result` events tell them: a call runs until its
// result arrives (the chat shows a running code call's code meanwhile); a call set to ask first waits for the person
// (`tool_approval_required`), and the answer keeps it to show the prompt.
import type { ChatMessage, LiveToolCall, ToolCallView } from './types';

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
