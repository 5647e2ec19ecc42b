// A model call's prompt and answer as the GenAI semantic conventions record them (`gen_ai.input.messages`,
// `gen_ai.output.messages`: a JSON string of messages with typed parts), for spans of a process that captures content
// (OTEL_CAPTURE_CONTENT=true). Images and audio are named by their kind, never copied.
import type { ChatRequest } from '#model-providers';

type Part =
  | { readonly type: 'text'; readonly content: string }
  | { readonly type: 'tool_call'; readonly id?: string; readonly name: string; readonly arguments?: unknown }
  | { readonly type: 'tool_call_response'; readonly id?: string; readonly result: string }
  | { readonly type: 'blob' | 'uri'; readonly modality: string };

const textOf = (content: unknown): Part[] => {
  if (typeof content === 'string') return content ? [{ type: 'text', content }] : [];
  if (!Array.isArray(content)) return [];
  return content.map((part: { type?: string; text?: string; refusal?: string }): Part => {
    if (part.type === 'text') return { type: 'text', content: part.text ?? '' };
    if (part.type === 'refusal') return { type: 'text', content: part.refusal ?? '' };
    return {
      type: 'uri',
      modality: part.type === 'input_audio' ? 'audio' : part.type === 'file' ? 'file' : 'image',
    };
  });
};

const parsedArguments = (text: string | undefined): unknown => {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return text;
  }
};

/** The request's messages, in order, each with its role and parts. */
export function inputMessages(messages: ChatRequest['messages']): string {
  return JSON.stringify(
    messages.map((message) => {
      if (message.role === 'tool') {
        const result = textOf(message.content)
          .map((part) => (part.type === 'text' ? part.content : ''))
          .join('');
        return { role: 'tool', parts: [{ type: 'tool_call_response', id: message.tool_call_id, result }] };
      }
      const parts = textOf(message.content);
      if (message.role === 'assistant')
        for (const call of message.tool_calls ?? [])
          if (call.type === 'function')
            parts.push({
              type: 'tool_call',
              id: call.id,
              name: call.function.name,
              arguments: parsedArguments(call.function.arguments),
            });
      return { role: message.role === 'developer' ? 'system' : message.role, parts };
    }),
  );
}

/** The answer as one output message: its text, its tool calls, and why it ended. */
export function outputMessages(
  text: string,
  toolCalls: readonly unknown[],
  finishReason: string | null,
): string {
  const parts: Part[] = text ? [{ type: 'text', content: text }] : [];
  for (const call of toolCalls as { id?: string; function?: { name?: string; arguments?: string } }[])
    parts.push({
      type: 'tool_call',
      id: call.id,
      name: call.function?.name ?? '',
      arguments: parsedArguments(call.function?.arguments),
    });
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReason ?? 'stop' }]);
}
