// The offline chat model's one way to be told which tool to call: a user message `call <tool name> <JSON arguments>`
// (`call echo {"message":"hi"}`; the arguments may be left out for `{}`). With it every offered tool is reachable
// without a language model, deterministically, and the tools a context owns but never picks itself (an App's) are
// called only this way.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { lastUserMessage, textOf } from './offline-responder.js';

export interface ToolCommand {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

const COMMAND = /^\s*call\s+([A-Za-z0-9_.:-]{1,128})(?:\s+([\s\S]*\S))?\s*$/;

/** The tool the person's last message names in the `call` form, with its arguments; undefined otherwise. */
export function toolCommand(messages: readonly ChatCompletionMessageParam[]): ToolCommand | undefined {
  const said = textOf(lastUserMessage(messages)?.content);
  const matched = COMMAND.exec(said);
  if (!matched) return undefined;
  if (matched[2] === undefined) return { name: matched[1]!, args: {} };
  let args: unknown;
  try {
    args = JSON.parse(matched[2]);
  } catch {
    return undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  return { name: matched[1]!, args: args as Record<string, unknown> };
}
