// What the chat shows under a message besides its text: where the model's view of the history was compacted (a
// marker that opens the summary the model reads instead of the earlier messages), and under an answer the tools it
// called (streamed while it runs, from its provenance once stored), the calls that wait for the person's approval and
// the questions tools ask them, the code it ran and, once stored, its "Why this answer".
import { t } from '../../i18n';
import { lazy } from '../../lazy';
import { useStoredToolCalls } from './stored-tool-calls';
import type { ChatMessage } from './types';
import type { TurnRecords } from './use-turn-records';
import { WhyAnswer } from './why-answer';

// Loaded when an answer ran code (the chat's first JavaScript does not carry it).
const CodeRuns = lazy(() => import('./code-runs'), 'CodeRuns');
// Loaded when an answer called a tool.
const ToolCalls = lazy(() => import('./tool-calls'), 'ToolCalls');
// Loaded when a call's result renders in an MCP App view (with the ext-apps host bridge).
const McpAppViews = lazy(() => import('./mcp-app-view'), 'McpAppViews');
// Loaded when a call waits for the person's decision.
const ToolApprovals = lazy(() => import('./tool-approval'), 'ToolApprovals');
// Loaded when a tool's server asks the person something.
const ToolElicitations = lazy(() => import('./tool-elicitation'), 'ToolElicitations');
// Loaded when an App the person has not connected was called.
const AppConnects = lazy(() => import('./app-connect'), 'AppConnects');
const RUN_CODE = 'run_code';

export function AnswerDetails({
  agentId,
  route,
  message,
  question,
  records,
  appNames,
  onInsert,
}: {
  agentId: string;
  /** The conversation's route (null before the first turn created it). */
  route: string | null;
  message: ChatMessage;
  /** The question the answer replies to. */
  question: ChatMessage | undefined;
  records: TurnRecords;
  /** The Agent's Apps' names by id: an App's tool call names its App. */
  appNames: ReadonlyMap<string, string>;
  /** Puts text into the message box (an MCP App view's message). */
  onInsert?: (text: string) => void;
}) {
  const { compaction } = records;
  const stored = !message.streaming && !message.id.startsWith('pending');
  const runs = question ? records.runs.filter((run) => run.messageId === question.id) : [];
  const ranCode = runs.length > 0 || message.tools?.some((call) => call.name === RUN_CODE);
  const answer = message.role === 'assistant' && route !== null;
  const storedCalls = useStoredToolCalls(
    answer && stored && !message.tools ? `${route}/messages/${message.id}/provenance` : null,
  );
  const calls = (message.tools ?? storedCalls).filter((call) => call.name !== RUN_CODE);
  return (
    <>
      {answer && calls.length > 0 && <ToolCalls calls={calls} appNames={appNames} />}
      {answer && onInsert && calls.some((call) => call.view) && (
        <McpAppViews
          agentId={agentId}
          route={route}
          messageId={message.id}
          calls={calls}
          appNames={appNames}
          onInsert={onInsert}
        />
      )}
      {answer && message.approvals && (
        <ToolApprovals route={route} approvals={message.approvals} appNames={appNames} />
      )}
      {answer && message.elicitations && (
        <ToolElicitations route={route} elicitations={message.elicitations} appNames={appNames} />
      )}
      {message.connectApps && <AppConnects asked={message.connectApps} appNames={appNames} />}
      {message.role === 'assistant' && route && ranCode && (
        <CodeRuns filesRoute={`${route}/sandbox/files`} runs={runs} live={message.tools} />
      )}
      {message.role === 'assistant' && route && stored && (
        <WhyAnswer agentId={agentId} route={route} answer={message} runs={runs} />
      )}
      {compaction?.throughMessageId === message.id && (
        <details class="compaction">
          <summary>
            {compaction.throughOffset > 0 && compaction.throughOffset < (message.content?.length ?? 0)
              ? t('compactedWithin')
              : t('compactedThrough')}
          </summary>
          <p>{compaction.summary ?? t('compactionSummaryGone')}</p>
        </details>
      )}
    </>
  );
}
