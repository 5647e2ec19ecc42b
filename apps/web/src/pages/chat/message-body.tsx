// An answer's HTML (Markdown made safe), memoised per content so a long conversation renders each message once and a
// streamed answer re-renders only its own text; its code blocks are highlighted after they are shown (highlight.js is
// loaded the first time an answer holds one), each with its copy button; a click on a citation chip names the cited
// passage.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { renderMarkdown } from '../../markdown';
import { language, t } from '../../i18n';
import type { Citation } from './types';

const highlighter = () => import('../../highlight');

export function MessageBody({
  content,
  citations = [],
  onCite,
}: {
  content: string;
  citations?: readonly Citation[];
  onCite: (n: number) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const html = useMemo(
    () =>
      renderMarkdown(content, {
        sourceName: (n) => {
          const cited = citations.find((c) => c.index === n);
          return cited && t('sourceNamed', { n: String(n), name: cited.documentName });
        },
      }),
    // The language too: the chips' names and the links' marker are in it.
    [content, citations, language()],
  );
  useEffect(() => {
    if (box.current?.querySelector('pre code'))
      void highlighter().then(({ highlightWithin }) => box.current && highlightWithin(box.current));
  }, [html]);
  const copy = (button: HTMLElement) => {
    const code = button.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
    navigator.clipboard.writeText(code).then(
      () => setCopied(t('copied')),
      () => setCopied(t('copyFailed')),
    );
  };
  return (
    <>
      <div
        ref={box}
        class="markdown"
        dangerouslySetInnerHTML={{ __html: html }}
        onClick={(event) => {
          const target = event.target as HTMLElement;
          const citation = target.closest<HTMLElement>('button.citation');
          if (citation) onCite(Number(citation.dataset.citation));
          const copyButton = target.closest<HTMLElement>('button.copy-code');
          if (copyButton) copy(copyButton);
        }}
      />
      <span class="visually-hidden" role="status">
        {copied}
      </span>
    </>
  );
}
