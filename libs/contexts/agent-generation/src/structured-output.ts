// generateObject's contract: the model is asked for JSON matching the client's schema, its answer is parsed and
// validated, and an invalid answer gets exactly one repair attempt (the model sees its own output and the validation
// errors). A second invalid answer is 422 `object_validation_failed`: the client gets a clear failure, never an object
// that breaks its schema.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { PlatformError } from '#kernel';
import type { ChatResult, TokenUsage } from '#model-providers';
import type { OutputValidator } from './json-schema.js';

/** How many validation errors a repair request and a 422 message list. */
export const LISTED_ERRORS = 5;

/** Asks the model once; `followUp` is appended to the conversation (empty on the first attempt). */
export type AskModel = (followUp: readonly ChatCompletionMessageParam[]) => Promise<ChatResult>;

export interface StructuredOutput {
  readonly object: unknown;
  readonly finishReason: ChatResult['finishReason'];
  /** Both attempts' tokens when a repair was needed. */
  readonly usage: TokenUsage;
  readonly repaired: boolean;
}

export type OutputCheck =
  { readonly valid: true; readonly value: unknown } | { readonly valid: false; readonly errors: string[] };

/** The JSON in a model's answer: the whole text, or the inside of one ```json fence around it. */
function jsonText(content: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(content);
  return fenced ? fenced[1]! : content;
}

export function checkOutput(validate: OutputValidator, content: string | null | undefined): OutputCheck {
  if (!content || content.trim() === '')
    return { valid: false, errors: ['the reply is empty; JSON was expected'] };
  let value: unknown;
  try {
    value = JSON.parse(jsonText(content));
  } catch (error) {
    return { valid: false, errors: [`the reply is not valid JSON (${(error as SyntaxError).message})`] };
  }
  const errors = validate(value);
  return errors.length === 0 ? { valid: true, value } : { valid: false, errors };
}

export function repairInstruction(errors: readonly string[]): string {
  return [
    'Your reply does not match the required JSON Schema:',
    ...errors.slice(0, LISTED_ERRORS).map((error) => `- ${error}`),
    'Reply with the corrected JSON only: no explanation and no code fences.',
  ].join('\n');
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
});

export async function generateStructuredOutput(
  ask: AskModel,
  validate: OutputValidator,
): Promise<StructuredOutput> {
  const first = await ask([]);
  const firstCheck = checkOutput(validate, first.message.content);
  if (firstCheck.valid)
    return {
      object: firstCheck.value,
      finishReason: first.finishReason,
      usage: first.usage,
      repaired: false,
    };

  const second = await ask([
    { role: 'assistant', content: first.message.content ?? '' },
    { role: 'user', content: repairInstruction(firstCheck.errors) },
  ]);
  const secondCheck = checkOutput(validate, second.message.content);
  if (secondCheck.valid)
    return {
      object: secondCheck.value,
      finishReason: second.finishReason,
      usage: addUsage(first.usage, second.usage),
      repaired: true,
    };
  throw new PlatformError(
    'unprocessable',
    'object_validation_failed',
    `the model's output did not match the schema, also after one repair attempt: ` +
      secondCheck.errors.slice(0, LISTED_ERRORS).join('; '),
  );
}
