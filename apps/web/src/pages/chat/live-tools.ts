// The tools a streamed answer calls, as its `tool_call` and `tool_result` events tell them: a call runs until its
// result arrives (the chat shows a running code call's code meanwhile); a call set to ask first waits for the person
// (`tool_approval_required`), and the answer keeps it to show the prompt; an App the person has not connected
// (`tool_auth_required`) is kept to offer its Connect button.
import type { ChatMessage, LiveToolCall } from './types';

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
    tools: tools.map((call) => (call.id === id ? { ...call, ok: body.ok === true } : call)),
  };
}
