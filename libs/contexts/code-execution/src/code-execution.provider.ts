// The code-execution context provider: on an Agent with `codeExecutionEnabled` (and a sandbox this deployment can
// run), a conversation turn offers the built-in `run_code` tool (Python 3 or a POSIX shell) in the conversation's
// sandbox: files written in one call are there in the next; the Agent's Skills' reference files are under /skills.
// Incognito conversations get no sandbox (nothing of them may be written down). Each run is in the provenance's
// tool calls and in the sandbox's own events.
import { Injectable } from '@nestjs/common';
import type {
  ContextContribution,
  ContextProvider,
  ContextTool,
  ToolOutcome,
  TurnContext,
} from '#conversations';
import { commandContext } from '#access';
import { formatCodeResult, RUN_CODE_TOOL } from './code-prompt.js';
import { CodeRuns } from './code-runs.js';
import { RunSlotsBusyError } from './run-slots.js';

export const CODE_INSTRUCTIONS =
  'You can run code with the run_code tool (Python 3 or a POSIX shell) in a sandbox kept for this conversation: ' +
  'files you write under /work are there in later calls; the reference files of your Skills are under ' +
  '/skills/<skill>/. There is no network.';

@Injectable()
export class CodeExecutionContextProvider implements ContextProvider {
  readonly name = 'code-execution';
  readonly share = 0.02;

  constructor(private readonly runs: CodeRuns) {}

  async contribute(turn: TurnContext): Promise<ContextContribution | null> {
    if (!turn.agent.codeExecutionEnabled || !turn.keepsTraces) return null;
    const availability = await this.runs.sandbox.availability();
    if (!availability.available) return null;
    return { system: CODE_INSTRUCTIONS, tools: [this.tool()] };
  }

  private tool(): ContextTool {
    return {
      definition: {
        type: 'function',
        function: {
          name: RUN_CODE_TOOL,
          description:
            'Run Python 3 or POSIX shell code in the conversation sandbox; returns exit status, output and new files.',
          parameters: {
            type: 'object',
            properties: {
              language: { type: 'string', enum: ['python', 'shell'] },
              code: { type: 'string', description: 'The program' },
            },
            required: ['language', 'code'],
            additionalProperties: false,
          },
        },
      },
      run: async (args: unknown, turn: TurnContext): Promise<ToolOutcome> => {
        const given = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
        const language = given.language === 'python' ? 'python' : given.language === 'shell' ? 'shell' : null;
        if (!language || typeof given.code !== 'string' || given.code.length === 0)
          return {
            content: 'run_code needs "language" (python or shell) and "code".',
            ok: false,
            sources: [],
          };
        let run: Awaited<ReturnType<CodeRuns['run']>>;
        try {
          run = await this.runs.run(
            turn.agent,
            turn.conversationId,
            { messageId: turn.messageId, answerId: turn.answerId },
            { language, code: given.code },
            turn.signal,
            commandContext(turn.caller),
            turn.caller.userId,
          );
        } catch (error) {
          if (error instanceof RunSlotsBusyError)
            return {
              content: `run_code did not run: ${error.message}. Try again later.`,
              ok: false,
              sources: [],
            };
          throw error;
        }
        return {
          content: formatCodeResult({
            language,
            exitCode: run.result.exitCode,
            stdout: run.result.stdout,
            stderr: run.result.stderr,
            truncated: run.result.truncated,
            timedOut: run.result.timedOut,
            files: run.files.map((file) => file.path),
          }),
          ok: run.result.exitCode === 0,
          sources: [],
        };
      },
    };
  }
}
