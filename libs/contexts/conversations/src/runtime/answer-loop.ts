// The model side of a turn: call the model through the ModelGateway (usage recorded with the conversation id, key
// limits enforced), run the tools it asks for, and call it again with their results, at most
// CONVERSATION_MAX_TOOL_STEPS times; the last step offers no tools, so a turn always ends in an answer. Streamed
// turns pass content deltas on as they arrive. What was produced so far survives an abort or a failure (`partial`),
// so the turn can be recorded as incomplete.
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { CallScope, ModelGateway } from '#model-gateway';
import type { ChatRequest, ModelConfig } from '#model-providers';
import type { AnswerUsage } from '../conversation.events.js';
import type { ContextTool, ToolOutcome, ToolView, TurnContext } from './context-providers.js';
import type { ToolCallGate } from './tool-call-gate.js';
import type { TurnEmitter } from './turn-events.js';
import { toolCallSpan } from './turn-spans.js';

export interface LoopInput {
  readonly gateway: ModelGateway;
  readonly scope: CallScope;
  readonly model: ModelConfig;
  readonly messages: readonly ChatCompletionMessageParam[];
  readonly sampling: Pick<ChatRequest, 'temperature' | 'top_p' | 'top_k'>;
  readonly tools: readonly ContextTool[];
  readonly maxSteps: number;
  readonly stream: boolean;
  readonly turn: TurnContext;
  readonly emit: TurnEmitter;
  /**
   * The usage operation the model calls are recorded under (default: the turn's, else `conversation`; a regression
   * replay's: `replay`).
   */
  readonly operation?: 'conversation' | 'replay';
  /** Makes the calls of recorded and approved tools (an App's); without it every tool just runs (a replay). */
  readonly gate?: ToolCallGate;
}

export interface LoopResult {
  readonly content: string;
  readonly finishReason: string | null;
  readonly usage: AnswerUsage;
  readonly steps: number;
  readonly toolCalls: {
    callId?: string;
    name: string;
    arguments: string;
    ok: boolean;
    sources: readonly number[];
    view?: ToolView;
  }[];
}

/** Thrown when the loop stops early: carries what it produced, so the turn is recorded as incomplete. */
export class AnswerInterrupted extends Error {
  constructor(
    readonly reason: unknown,
    readonly partial: LoopResult,
  ) {
    super('the answer was interrupted');
  }
}

interface StepAnswer {
  content: string;
  toolCalls: ChatCompletionMessageFunctionToolCall[];
  finishReason: string | null;
  usage: AnswerUsage;
}

export async function answerLoop(input: LoopInput): Promise<LoopResult> {
  const messages = [...input.messages];
  const usage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
  const toolCalls: LoopResult['toolCalls'] = [];
  let content = '';
  let steps = 0;
  const partial = (finishReason: string | null): LoopResult => ({
    content,
    finishReason,
    usage: { ...usage },
    steps,
    toolCalls,
  });
  try {
    for (;;) {
      steps++;
      const offerTools = input.tools.length > 0 && steps < input.maxSteps;
      const request: ChatRequest = {
        messages,
        ...input.sampling,
        ...(offerTools ? { tools: input.tools.map((tool) => tool.definition) } : {}),
      };
      const answer = await step(input, request, (text) => (content += text));
      usage.inputTokens += answer.usage.inputTokens;
      usage.cachedInputTokens += answer.usage.cachedInputTokens;
      usage.outputTokens += answer.usage.outputTokens;
      if (answer.toolCalls.length === 0 || !offerTools) {
        if (!input.stream) content = answer.content;
        return partial(answer.finishReason);
      }
      // Text the model wrote before asking for tools is not part of the answer.
      content = '';
      messages.push({
        role: 'assistant',
        content: answer.content || null,
        tool_calls: answer.toolCalls,
      } satisfies ChatCompletionAssistantMessageParam);
      for (const call of answer.toolCalls) {
        const tool = input.tools.find(
          (candidate) => candidate.definition.function.name === call.function.name,
        );
        await input.emit({
          event: 'tool_call',
          data: { id: call.id, name: call.function.name, arguments: call.function.arguments },
        });
        let outcome: ToolOutcome;
        if (!tool)
          outcome = { content: `There is no tool named '${call.function.name}'.`, ok: false, sources: [] };
        else {
          let args: unknown;
          try {
            args = JSON.parse(call.function.arguments || '{}');
          } catch {
            args = undefined;
          }
          outcome = await toolCallSpan(call, async () =>
            args === undefined
              ? { content: 'The arguments were not valid JSON.', ok: false, sources: [] }
              : input.gate
                ? input.gate.run(
                    { id: call.id, name: call.function.name, arguments: call.function.arguments },
                    tool,
                    args,
                    input.turn,
                  )
                : tool.run(args, input.turn),
          );
        }
        toolCalls.push({
          ...(outcome.callId ? { callId: outcome.callId } : {}),
          name: call.function.name,
          arguments: call.function.arguments,
          ok: outcome.ok,
          sources: outcome.sources,
          ...(outcome.view ? { view: outcome.view } : {}),
        });
        if (outcome.authRequired)
          await input.emit({
            event: 'tool_auth_required',
            data: { id: call.id, name: call.function.name, ...outcome.authRequired },
          });
        await input.emit({
          event: 'tool_result',
          data: {
            id: call.id,
            name: call.function.name,
            ok: outcome.ok,
            sources: outcome.sources.map((index) => input.turn.sources.get(index)!),
            ...(outcome.view ? { view: outcome.view } : {}),
          },
        });
        messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
      }
    }
  } catch (error) {
    throw new AnswerInterrupted(error, partial(null));
  }
}

/** One model call; streamed content goes to `onText` (and out as `delta` events) as it arrives. */
async function step(
  input: LoopInput,
  request: ChatRequest,
  onText: (text: string) => void,
): Promise<StepAnswer> {
  const signal = input.turn.signal;
  if (!input.stream) {
    const result = await input.gateway.chat(
      input.scope,
      input.model,
      request,
      signal,
      input.operation ?? input.turn.operation ?? 'conversation',
    );
    return {
      content: result.message.content ?? '',
      toolCalls: (result.message.tool_calls ?? []).filter(
        (call): call is ChatCompletionMessageFunctionToolCall => call.type === 'function',
      ),
      finishReason: result.finishReason,
      usage: result.usage,
    };
  }
  const deltas = await input.gateway.chatStream(
    input.scope,
    input.model,
    request,
    signal,
    input.operation ?? input.turn.operation ?? 'conversation',
  );
  const calls: { id: string; name: string; arguments: string }[] = [];
  let content = '';
  let finishReason: string | null = null;
  let usage: AnswerUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
  for await (const delta of deltas) {
    const text = delta.delta.content;
    if (text) {
      content += text;
      onText(text);
      await input.emit({ event: 'delta', data: { text } });
    }
    for (const part of delta.delta.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name += part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
    if (delta.finishReason) finishReason = delta.finishReason;
    if (delta.usage) usage = delta.usage;
  }
  return {
    content,
    toolCalls: calls
      .filter((call) => call.name.length > 0)
      .map((call, index) => ({
        id: call.id || `call_${index}`,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    finishReason,
    usage,
  };
}
