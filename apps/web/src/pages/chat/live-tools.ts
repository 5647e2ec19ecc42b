// The tools a streamed answer calls, as its `tool_call` and `tool_result` events tell them: a call runs until its
// result arrives (the chat shows a running code call's code meanwhile).
import type { ChatMessage, LiveToolCall } from './types';

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
