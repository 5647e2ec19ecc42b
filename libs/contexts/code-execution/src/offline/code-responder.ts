// Code execution's part of the offline chat model: it calls `run_code` only when the user's message holds a fenced
// code block (```python, ```sh…; `code-prompt.ts`), with that code, once a turn and before any other built-in tool
// (a message holding code to run is about that code: its words ask for no search and no Skill); after the run's
// result it answers with the exit code and the start of the output, whatever else the turn holds.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  lastTurnResult,
  lastUserMessage,
  textOf,
  turnCalls,
  type OfflineResponder,
} from '#model-providers/offline-kit';
import { fencedCode, parseCodeResult, RUN_CODE_TOOL, type CodeResult } from '../code-prompt.js';

type Messages = readonly ChatCompletionMessageParam[];

export const OFFLINE_CODE_PREFIX =
  'Offline stand-in answer (no language model was called), after running the code: ';
/** Characters of a run's stdout quoted in the answer after it. */
const CODE_OUTPUT_QUOTE = 200;

/** Whether the user's message holds code in a fenced block. */
const holdsCode = (messages: Messages): boolean => {
  const user = lastUserMessage(messages);
  return user !== undefined && fencedCode(textOf(user.content)) !== undefined;
};

/** Whether the user's message holds code and the turn has not run code yet. */
const codeAsked = (messages: Messages): boolean =>
  holdsCode(messages) &&
  !turnCalls(messages).includes(RUN_CODE_TOOL) &&
  lastTurnResult(messages, parseCodeResult) === undefined;

/** The answer after a `run_code` result: `exit <n>; output: <start of stdout>`, then the files it left. */
const codeAnswer = (result: CodeResult): string => {
  const status = result.timedOut
    ? 'timed out'
    : `exit ${result.exitCode === null ? 'none' : String(result.exitCode)}`;
  const output = Array.from(result.stdout.trim()).slice(0, CODE_OUTPUT_QUOTE).join('');
  const files = result.files.length > 0 ? ` Files: ${result.files.join(', ')}` : '';
  return `${OFFLINE_CODE_PREFIX}${status}; output: ${output === '' ? '(none)' : output}${files}`;
};

export const codeOfflineResponder: OfflineResponder = {
  name: 'code-execution',
  tools: [
    {
      name: RUN_CODE_TOOL,
      asked: codeAsked,
      claims: holdsCode,
      args: (_messages, said) => fencedCode(said),
    },
  ],
  reply: (messages, before) => {
    const ran = lastTurnResult(messages, parseCodeResult);
    return ran ? { text: codeAnswer(ran), found: true } : before();
  },
};
