// The prompt under a streaming answer when it calls a tool set to "ask first": the tool by its readable name and App,
// the arguments it would be called with, Allow and Deny. The turn waits on the server until the person decides (or the
// call expires); the prompt then says what was decided. Focus moves to it and it is announced, since the answer
// stops mid-sentence until the person acts.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t, type Label } from '../../i18n';
import { readable, toolNaming } from './tool-calls';
import type { ApprovalAsked } from './types';

type Decision = 'approve' | 'deny';

// Outlives the prompt: the stored answer that replaces the streamed one keeps saying what the person decided.
const decided = new Map<string, Decision>();

const REFUSALS: Readonly<Record<string, Label>> = {
  tool_call_not_found: 'approvalGone',
  conversation_not_found: 'approvalGone',
};

function ApprovalPrompt({
  route,
  asked,
  appName,
}: {
  route: string;
  asked: ApprovalAsked;
  appName: (appId: string) => string;
}) {
  const [decision, setDecision] = useState<Decision | null>(decided.get(asked.callId) ?? null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const allow = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!decided.has(asked.callId)) allow.current?.focus();
  }, [asked.callId]);
  const { tool, appId } = toolNaming(asked.name);
  const decide = async (choice: Decision) => {
    setBusy(true);
    setError(null);
    // Kept before the server answers: the turn goes on as soon as it has the decision, and the stored answer that
    // replaces this one can mount before this request returns.
    decided.set(asked.callId, choice);
    try {
      await api('POST', `${route}/tool-calls/${encodeURIComponent(asked.callId)}`, { decision: choice });
      setDecision(choice);
    } catch (failure) {
      decided.delete(asked.callId);
      setError(errorSentence(failure, REFUSALS));
    } finally {
      setBusy(false);
    }
  };
  const titleId = `approval-${asked.callId}`;
  return (
    <section class="tool-approval" aria-labelledby={titleId} data-decision={decision ?? 'waiting'}>
      <p id={titleId} role="status">
        {decision === null
          ? t('approvalAsk', { tool })
          : t(decision === 'approve' ? 'approvalAllowed' : 'approvalDenied', { tool })}
        {appId && <span class="muted"> {t('toolFromApp', { app: appName(appId) })}</span>}
      </p>
      <p class="note">{t('toolArguments')}</p>
      <pre>{readable(asked.arguments)}</pre>
      {decision === null && (
        <div class="actions">
          <button type="button" ref={allow} disabled={busy} onClick={() => void decide('approve')}>
            {t('approvalAllow')}
          </button>
          <button type="button" disabled={busy} onClick={() => void decide('deny')}>
            {t('approvalDeny')}
          </button>
        </div>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}

export function ToolApprovals({
  route,
  approvals,
  appNames,
}: {
  /** The conversation's route. */
  route: string;
  approvals: readonly ApprovalAsked[];
  appNames: ReadonlyMap<string, string>;
}) {
  const appName = (appId: string) => appNames.get(appId) ?? appId;
  return (
    <>
      {approvals.map((asked) => (
        <ApprovalPrompt key={asked.callId} route={route} asked={asked} appName={appName} />
      ))}
    </>
  );
}
