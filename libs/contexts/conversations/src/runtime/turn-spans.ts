// The spans of a conversation turn, named as the GenAI semantic conventions name an agent's work: the turn
// (`invoke_agent {Agent}`), each context provider's part of the prompt (`retrieval knowledge`, `retrieval memory`, …),
// each tool call (`execute_tool {tool}`) and each provider's work after the answer (memory extraction); the model
// attempts nest under the turn (the gateway's spans). The user's message, tool arguments and results go in only when
// content capture is on. Without tracing, each step runs as it is.
import { capturingContent, inSpan, SpanKind } from '#kernel';
import type { AgentView } from '#agents';
import type { ModelConfig } from '#model-providers';
import type { ToolOutcome } from './context-providers.js';

/** The turn: every step below, and the model attempts, are its children. */
export function turnSpan<T>(
  agent: AgentView,
  conversationId: string,
  model: ModelConfig,
  work: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `invoke_agent ${agent.name}`,
    SpanKind.INTERNAL,
    {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agent.id,
      'gen_ai.agent.name': agent.name,
      'gen_ai.conversation.id': conversationId,
      'gen_ai.request.model': model.key,
    },
    work,
  );
}

/** One context provider's section (Knowledge's retrieval, Memory's recall, …): its data source is the provider. */
export function contributionSpan<T>(provider: string, query: string, work: () => Promise<T>): Promise<T> {
  return inSpan(
    `retrieval ${provider}`,
    SpanKind.INTERNAL,
    {
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': provider,
      ...(capturingContent() ? { 'gen_ai.retrieval.query.text': query } : {}),
    },
    work,
  );
}

/** A provider's work once the answer is recorded (Memory's extraction and its model call). */
export function afterAnswerSpan<T>(provider: string, work: () => Promise<T>): Promise<T> {
  return inSpan(
    `after_answer ${provider}`,
    SpanKind.INTERNAL,
    { 'agent_platform.context_provider': provider },
    work,
  );
}

/** One tool call the model asked for: failed (`error.type` tool_error) when its outcome is not ok. */
export function toolCallSpan(
  call: { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } },
  work: () => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const capture = capturingContent();
  return inSpan(
    `execute_tool ${call.function.name}`,
    SpanKind.INTERNAL,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.function.name,
      'gen_ai.tool.call.id': call.id,
      'gen_ai.tool.type': 'function',
      ...(capture ? { 'gen_ai.tool.call.arguments': call.function.arguments } : {}),
    },
    async (span) => {
      const outcome = await work();
      if (span && !outcome.ok) span.setAttribute('error.type', 'tool_error');
      if (span && capture) span.setAttribute('gen_ai.tool.call.result', outcome.content);
      return outcome;
    },
  );
}
