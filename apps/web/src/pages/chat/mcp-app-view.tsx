// The MCP App views of an answer, each below the tool call whose result it renders: the view's document (served by
// the platform in a CSP sandbox: an opaque origin, none of the platform's cookies or storage) in an iframe without
// allow-same-origin, hosted through the ext-apps bridge (mcp-app-host.ts). What the view asks goes through the
// person: its tool calls are the platform's (a tool set to "ask first" is asked here, Allow or Deny), its message is
// put into the message box for the person to send or not, a link it wants opened is offered as a link to click
// (new tab, no opener), and its height follows what it reports, within bounds.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, CORE } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import { hostView } from './mcp-app-host';
import { readable, toolNaming, type ToolCallShown } from './tool-calls';
import type { ToolCallView } from './types';

/** The most a view may put into the message box at once. */
const INSERT_LIMIT = 4000;
const MIN_HEIGHT = 120;
const MAX_HEIGHT = 800;
const FIRST_HEIGHT = 320;

type Decision = 'approve' | 'deny';
interface Asking {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly settle: (decision: Decision) => void;
}

const failed = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true });

const argumentsOf = (call: ToolCallShown): Record<string, unknown> => {
  try {
    const parsed = JSON.parse(call.arguments ?? '{}') as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
};

/** The Agent's App tools by App and server name → the name the routes take (`<appId>__<tool>`, sanitised). */
const toolNames = new Map<string, Promise<Map<string, string>>>();
function routeName(agentId: string, appId: string, tool: string): Promise<string | undefined> {
  let names = toolNames.get(agentId);
  if (!names) {
    names = api<{ data: { name: string; appId: string; tool: string }[] }>(
      'GET',
      `agents/${agentId}/tools`,
    ).then(({ data }) => new Map(data.map((entry) => [`${entry.appId}\u0000${entry.tool}`, entry.name])));
    names.catch(() => toolNames.delete(agentId));
    toolNames.set(agentId, names);
  }
  return names.then((found) => found.get(`${appId}\u0000${tool}`));
}

// Over 100 lines on purpose: one view's frame, its bridge and the three things it may ask of the person together.
function McpAppFrame({
  agentId,
  route,
  messageId,
  call,
  view,
  appName,
  onInsert,
}: {
  agentId: string;
  route: string;
  messageId: string;
  call: ToolCallShown;
  view: ToolCallView;
  appName: string;
  onInsert: (text: string) => void;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [src, setSrc] = useState<string | null>(null);
  const [height, setHeight] = useState(FIRST_HEIGHT);
  const [link, setLink] = useState<string | null>(null);
  const [inserted, setInserted] = useState<string | null>(null);
  const [asking, setAsking] = useState<Asking | null>(null);
  const [error, setError] = useState<string | null>(null);
  const allow = useRef<HTMLButtonElement>(null);
  // The view waits on the person: the decision is where the keyboard is.
  useEffect(() => {
    if (asking) allow.current?.focus();
  }, [asking]);
  const url = `${CORE}/mcp-views/${agentId}/${encodeURIComponent(view.appId)}?uri=${encodeURIComponent(view.uri)}`;
  const stored = !messageId.startsWith('pending');

  const callTool = async (tool: string, args: Record<string, unknown>) => {
    if (!stored) return failed(t('mcpViewNotStored'));
    const name = await routeName(agentId, view.appId, tool).catch(() => undefined);
    if (!name) return failed(t('mcpViewToolUnknown', { tool }));
    const path = `${route}/app-tools/${encodeURIComponent(name)}`;
    const send = (decision?: Decision) =>
      api<{ result: { content: { type: 'text'; text: string }[] } }>('POST', path, {
        messageId,
        arguments: args,
        ...(decision ? { decision } : {}),
      }).then((answer) => answer.result);
    try {
      return await send();
    } catch (failure) {
      if (!(failure instanceof ApiError) || failure.code !== 'tool_approval_required')
        return failed(errorSentence(failure));
    }
    const decision = await new Promise<Decision>((settle) => setAsking({ tool, args, settle }));
    setAsking(null);
    return send(decision).catch((failure: unknown) => failed(errorSentence(failure)));
  };

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    let live = true;
    let end: (() => void) | null = null;
    setSrc(null);
    hostView(
      element,
      { arguments: argumentsOf(call), result: view.result },
      {
        callTool,
        insert: (text) => {
          const cut = text.slice(0, INSERT_LIMIT);
          onInsert(cut);
          setInserted(cut);
        },
        offerLink: setLink,
        resize: (next) => setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(next)))),
      },
    ).then(
      (stop) => {
        if (!live) return stop();
        end = stop;
        // The document is loaded once the bridge listens: its first message is never missed.
        setSrc(url);
      },
      (failure: unknown) => live && setError(errorSentence(failure)),
    );
    return () => {
      live = false;
      end?.();
    };
  }, [url, messageId]);

  const title = t('mcpViewTitle', { app: appName, tool: toolNaming(call.name).tool });
  return (
    <section class="mcp-view" aria-label={title}>
      <iframe
        ref={frame}
        src={src ?? 'about:blank'}
        title={title}
        sandbox="allow-scripts allow-forms"
        referrerpolicy="no-referrer"
        style={{ height: `${height}px` }}
      />
      {asking && (
        <div class="tool-approval" role="group" aria-label={t('mcpViewAsks', { tool: asking.tool })}>
          <p role="status">{t('mcpViewAsks', { tool: asking.tool })}</p>
          <p class="note">{t('toolArguments')}</p>
          <pre>{readable(JSON.stringify(asking.args))}</pre>
          <div class="actions">
            <button type="button" ref={allow} onClick={() => asking.settle('approve')}>
              {t('approvalAllow')}
            </button>
            <button type="button" onClick={() => asking.settle('deny')}>
              {t('approvalDeny')}
            </button>
          </div>
        </div>
      )}
      {link && (
        <p class="mcp-view-link">
          {t('mcpViewLink')}{' '}
          <a href={link} target="_blank" rel="noopener noreferrer" onClick={() => setLink(null)}>
            {link}
          </a>{' '}
          <button type="button" onClick={() => setLink(null)}>
            {t('mcpViewLinkDismiss')}
          </button>
        </p>
      )}
      {inserted && (
        <p class="note" role="status">
          {t('mcpViewInserted')} <q>{inserted.length > 200 ? `${inserted.slice(0, 200)}…` : inserted}</q>
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}

/** The views of an answer's tool calls that have one. */
export function McpAppViews({
  agentId,
  route,
  messageId,
  calls,
  appNames,
  onInsert,
}: {
  agentId: string;
  /** The conversation's route. */
  route: string;
  messageId: string;
  calls: readonly ToolCallShown[];
  appNames: ReadonlyMap<string, string>;
  onInsert: (text: string) => void;
}) {
  return (
    <>
      {calls.map(
        (call, index) =>
          call.view && (
            <McpAppFrame
              key={`${messageId}/${index}`}
              agentId={agentId}
              route={route}
              messageId={messageId}
              call={call}
              view={call.view}
              appName={appNames.get(call.view.appId) ?? call.view.appId}
              onInsert={onInsert}
            />
          ),
      )}
    </>
  );
}
