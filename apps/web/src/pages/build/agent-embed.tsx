// The three ways to embed a public Agent on a site (an iframe, an inline widget, a floating bubble), each snippet with
// a button that copies it, and a live preview of the embed (its page in a frame; also to try in a new tab).
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import type { AgentDetails } from './build-kit';

export function EmbedSnippets({ agent }: { agent: AgentDetails }) {
  const [copied, setCopied] = useState<string | null>(null);
  const origin = location.origin;
  const snippets: [string, string][] = [
    [
      t('iframeSnippet'),
      `<iframe src="${origin}/embed/${agent.id}" title="${agent.name}" width="400" height="600" style="border:0"></iframe>`,
    ],
    [
      t('widgetSnippet'),
      `<div id="agent-chat"></div>\n<script src="${origin}/embed/widget.js" data-agent="${agent.id}" data-target="#agent-chat" defer></script>`,
    ],
    [t('bubbleSnippet'), `<script src="${origin}/embed/bubble.js" data-agent="${agent.id}" defer></script>`],
  ];
  const copy = (caption: string, code: string) =>
    void navigator.clipboard.writeText(code).then(
      () => setCopied(t('copiedSnippet', { name: caption })),
      () => setCopied(t('copyFailed')),
    );
  return (
    <section aria-labelledby="snippets-title">
      <h2 id="snippets-title">{t('embedSnippets')}</h2>
      {agent.isPublic ? (
        <>
          <h3>{t('embedPreview')}</h3>
          {/* The instance's own embed page, framed as a host site would (the app's CSP allows its /embed/ path). */}
          <iframe
            class="embed-preview"
            src={`/embed/${encodeURIComponent(agent.id)}`}
            title={t('embedPreviewOf', { name: agent.name })}
          />
          <p>
            <a href={`/embed/${agent.id}`} target="_blank" rel="noopener">
              {t('openEmbed')}
            </a>
          </p>
        </>
      ) : (
        <p class="note">{t('embedNotPublic')}</p>
      )}
      {snippets.map(([caption, code]) => (
        <figure key={caption} class="snippet">
          <figcaption>
            {caption}{' '}
            <button type="button" onClick={() => copy(caption, code)}>
              {t('copySnippet', { name: caption })}
            </button>
          </figcaption>
          <pre>
            <code>{code}</code>
          </pre>
        </figure>
      ))}
      <p role="status" class="note">
        {copied}
      </p>
    </section>
  );
}
