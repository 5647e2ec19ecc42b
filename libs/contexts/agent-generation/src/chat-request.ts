// What the core generate endpoints send to a model: the Agent's system prompt first, then any conversation history,
// then the client's messages, with the Agent's sampling controls (a disabled one is left out, not sent as null).
// Clients cannot send instructions of their own: `system` and `developer` messages are refused (spec: "Core API",
// rule 1), so the Agent's prompt is the only instruction the model gets.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { ValidationError } from '#kernel';
import type { ChatRequest } from '#model-providers';
import type { AgentView } from '#agents';
import { agentSampling } from '#conversations';

const INSTRUCTION_ROLES = ['system', 'developer'];

/**
 * Refuses the first `system`/`developer` message with 400 `system_role_not_allowed`, naming it as
 * `messages.<index>.role`. Runs on the raw body, before the schema, so the client gets this code and not a generic
 * "invalid value".
 */
export function rejectInstructionRoles(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return;
  messages.forEach((message: unknown, index) => {
    const role =
      typeof message === 'object' && message !== null ? (message as { role?: unknown }).role : null;
    if (typeof role === 'string' && INSTRUCTION_ROLES.includes(role))
      throw new ValidationError(
        'system_role_not_allowed',
        `messages[${index}] has role '${role}': the Agent's system prompt is the only instruction; ` +
          "send 'user', 'assistant' or 'tool' messages",
        `messages.${index}.role`,
      );
  });
}

export type AgentSettingsForChat = Pick<AgentView, 'systemPrompt' | 'temperature' | 'topP' | 'topK'>;

export interface ChatRequestInput {
  readonly agent: AgentSettingsForChat;
  /** Earlier messages of the conversation, sent between the system prompt and the client's messages. */
  readonly history?: readonly ChatCompletionMessageParam[];
  readonly messages: readonly ChatCompletionMessageParam[];
  readonly maxTokens?: number | undefined;
  readonly responseFormat?: ChatRequest['response_format'];
}

export function buildChatRequest(input: ChatRequestInput): ChatRequest {
  const { agent } = input;
  const system: ChatCompletionMessageParam[] =
    agent.systemPrompt.trim().length > 0 ? [{ role: 'system', content: agent.systemPrompt }] : [];
  return {
    messages: [...system, ...(input.history ?? []), ...input.messages],
    ...agentSampling(agent),
    ...(input.maxTokens !== undefined ? { max_completion_tokens: input.maxTokens } : {}),
    ...(input.responseFormat ? { response_format: input.responseFormat } : {}),
  };
}
