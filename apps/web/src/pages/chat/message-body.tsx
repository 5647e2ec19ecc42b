// An answer's HTML (Markdown made safe), memoised per content so a long conversation renders each message once; a
// click on a citation `[n]` names the cited passage.
import { useMemo } from 'preact/hooks';
import { renderMarkdown } from '../../markdown';

export function MessageBody({ content, onCite }: { content: string; onCite: (n: number) => void }) {
  const html = useMemo(() => renderMarkdown(content), [content]);
  return (
    <div
      class="markdown"
      dangerouslySetInnerHTML={{ __html: html }}
      onClick={(event) => {
        const target = (event.target as HTMLElement).closest<HTMLElement>('button.citation');
        if (target) onCite(Number(target.dataset.citation));
      }}
    />
  );
}
