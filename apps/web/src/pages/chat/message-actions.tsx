// One message's actions once its turn is done: copy (an answer's Markdown as written), regenerate (the last answer),
// edit a question and resend, delete, the versions of an edited or regenerated turn; and, on an answer, its model with
// the tokens it used, which the provenance route answers when the person points at or focuses it (a page of messages
// leaves usage out).
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { language, t } from '../../i18n';
import { BranchSwitch } from './branch-switch';
import type { ChatMessage, Siblings } from './types';

interface Usage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
}

function ModelUsage({ provenancePath, model }: { provenancePath: string; model: string }) {
  const [usage, setUsage] = useState<Usage | null | 'failed'>(null);
  const [open, setOpen] = useState(false);
  const show = () => {
    setOpen(true);
    if (usage === null)
      api<{ usage: Usage }>('GET', provenancePath).then(
        (provenance) => setUsage(provenance.usage),
        () => setUsage('failed'),
      );
  };
  const count = (n: number) => new Intl.NumberFormat(language()).format(n);
  const id = `usage-${provenancePath.split('/').at(-2)}`;
  return (
    <span class="model-usage" onMouseEnter={show} onMouseLeave={() => setOpen(false)}>
      <button
        type="button"
        class="model-name"
        aria-describedby={open ? id : undefined}
        onFocus={show}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      >
        {model}
      </button>
      {open && (
        <span role="tooltip" id={id} class="usage-tip">
          {usage === null
            ? t('loading')
            : usage === 'failed'
              ? t('usageUnavailable')
              : t('tokensUsed', {
                  input: count(usage.inputTokens),
                  cached: count(usage.cachedInputTokens),
                  output: count(usage.outputTokens),
                })}
        </span>
      )}
    </span>
  );
}

export function MessageActions({
  message,
  last,
  messagesPath,
  onEdit,
  onRegenerate,
  onDelete,
  versions,
  onSwitch,
}: {
  message: ChatMessage;
  /** The versions of this turn's question, when it has several. */
  versions: Siblings | null;
  onSwitch: (messageId: string) => void;
  /** The conversation's last answer: it may be regenerated. */
  last: boolean;
  /** `…/conversation/{id}/messages`: null while the conversation is not stored yet. */
  messagesPath: string | null;
  onEdit: () => void;
  onRegenerate: () => void;
  onDelete: () => void;
}) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(message.content ?? '').then(
      () => setCopied(t('copied')),
      () => setCopied(t('copyFailed')),
    );
  const answer = message.role === 'assistant';
  return (
    <div class="actions">
      {versions && <BranchSwitch siblings={versions} onSwitch={onSwitch} />}
      {answer && (
        <button type="button" onClick={() => void copy()}>
          {t('copy')}
        </button>
      )}
      {!answer && (
        <button type="button" onClick={onEdit}>
          {t('edit')}
        </button>
      )}
      {answer && last && (
        <button type="button" onClick={onRegenerate}>
          {t('regenerate')}
        </button>
      )}
      <button type="button" onClick={onDelete}>
        {t('deleteMessage')}
      </button>
      {answer && message.model && messagesPath && (
        <ModelUsage provenancePath={`${messagesPath}/${message.id}/provenance`} model={message.model} />
      )}
      <span role="status" class="note">
        {copied}
      </span>
    </div>
  );
}
