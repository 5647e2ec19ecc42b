// Markdown made safe by construction: marked renders, DOMPurify sanitises, and every image that is not a file of the
// instance's content routes becomes a link (never fetched: a prompt-injected answer cannot exfiltrate through an image
// URL, nor make the viewer's browser call an App with their cookie). A link to another origin opens in a new tab
// with rel="noopener noreferrer", an icon and a hidden "(opens in a new tab)"; a link of this instance opens in
// place (the chat's; the embed opens every link in a new tab). In the chat, a code block gets its language and a
// copy button (highlighting comes later, highlight.ts). A table scrolls in its own box on a narrow screen. Citation
// markers `[n]` become chips named after their source.
import { Marked } from 'marked';
import DOMPurify from 'dompurify';
import { isContentImage } from './content-images';
import { t } from './i18n';

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** The new tab's marker after an external link: an arrow (not read) and the words (read, not seen). */
function markExternal(link: HTMLAnchorElement): void {
  link.setAttribute('target', '_blank');
  link.setAttribute('rel', 'noopener noreferrer');
  link.classList.add('external');
  const icon = document.createElement('span');
  icon.className = 'external-icon';
  icon.setAttribute('aria-hidden', 'true');
  icon.textContent = '↗';
  const words = document.createElement('span');
  words.className = 'visually-hidden';
  words.textContent = ` ${t('opensInNewTab')}`;
  link.append(icon, words);
}

function isExternal(href: string): boolean {
  try {
    return new URL(href, location.href).origin !== location.origin;
  } catch {
    return true;
  }
}

function codeBlock(pre: HTMLElement): HTMLElement {
  const code = pre.querySelector('code');
  const language = /language-([\w+#-]+)/.exec(code?.className ?? '')?.[1] ?? '';
  const block = document.createElement('div');
  block.className = 'code-block';
  const head = document.createElement('div');
  head.className = 'code-head';
  const name = document.createElement('span');
  name.className = 'code-language';
  name.textContent = language || t('codeBlock');
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.className = 'copy-code';
  copy.textContent = t('copy');
  copy.setAttribute('aria-label', language ? t('copyCodeIn', { language }) : t('copyCode'));
  head.append(name, copy);
  pre.replaceWith(block);
  block.append(head, pre);
  return block;
}

/** How the chat renders (the embed renders without: every link in a new tab, no code tools). */
export interface ChatRendering {
  /** The name of the n-th source ("Source 2: handbook.pdf"), when the answer's citations are known. */
  readonly sourceName: (n: number) => string | undefined;
}

export function renderMarkdown(text: string, chat?: ChatRendering): string {
  const html = marked.parse(text.replace(/\[(\d{1,3})\](?!\()/g, '<cite-ref>$1</cite-ref>')) as string;
  const template = document.createElement('template');
  // Sanitised first (inert template: nothing loads), images rewritten before anything is attached to the page.
  template.innerHTML = DOMPurify.sanitize(html, {
    ADD_TAGS: ['cite-ref'],
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe'],
    FORBID_ATTR: ['style', 'srcset', 'target'],
  });
  for (const image of Array.from(template.content.querySelectorAll('img'))) {
    const src = image.getAttribute('src') ?? '';
    if (isContentImage(src, location.href)) continue;
    const link = document.createElement('a');
    link.href = src;
    link.textContent = image.getAttribute('alt') || src;
    link.className = 'remote-image';
    image.replaceWith(link);
  }
  for (const link of Array.from(template.content.querySelectorAll<HTMLAnchorElement>('a[href]')))
    // An image that became a link is never the app's own page: it opens apart, whatever its origin.
    if (!chat || link.classList.contains('remote-image') || isExternal(link.getAttribute('href') ?? ''))
      markExternal(link);
  if (chat)
    for (const pre of Array.from(template.content.querySelectorAll<HTMLElement>('pre'))) codeBlock(pre);
  for (const table of Array.from(template.content.querySelectorAll('table'))) {
    const wrap = document.createElement('div');
    wrap.className = 'table-wrap';
    table.replaceWith(wrap);
    wrap.append(table);
  }
  for (const ref of Array.from(template.content.querySelectorAll('cite-ref'))) {
    const n = ref.textContent ?? '';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'citation';
    button.dataset.citation = n;
    button.textContent = n;
    button.setAttribute('aria-label', chat?.sourceName(Number(n)) ?? t('sourceNumber', { n }));
    ref.replaceWith(button);
  }
  return template.innerHTML;
}
