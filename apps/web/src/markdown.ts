// Markdown made safe by construction: marked renders, DOMPurify sanitises, and every image that is not a file of the
// instance's content routes becomes a link (never fetched: a prompt-injected answer cannot exfiltrate through an image
// URL, nor make the viewer's browser call an App with their cookie);
// links open in a new tab with rel="noopener noreferrer". Citation markers `[n]` become buttons.
import { Marked } from 'marked';
import DOMPurify from 'dompurify';
import { isContentImage } from './content-images';

const marked = new Marked({ gfm: true, breaks: false, async: false });

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text.replace(/\[(\d{1,3})\](?!\()/g, '<cite-ref>$1</cite-ref>')) as string;
  const template = document.createElement('template');
  // Sanitised first (inert template: nothing loads), images rewritten before anything is attached to the page.
  template.innerHTML = DOMPurify.sanitize(html, {
    ADD_TAGS: ['cite-ref'],
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe'],
    FORBID_ATTR: ['style', 'srcset'],
  });
  for (const image of Array.from(template.content.querySelectorAll('img'))) {
    const src = image.getAttribute('src') ?? '';
    if (isContentImage(src, location.href)) continue;
    const link = document.createElement('a');
    link.href = src;
    link.textContent = image.getAttribute('alt') || src;
    link.setAttribute('target', '_blank');
    link.setAttribute('rel', 'noopener noreferrer');
    link.className = 'remote-image';
    image.replaceWith(link);
  }
  for (const ref of Array.from(template.content.querySelectorAll('cite-ref'))) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'citation';
    button.dataset.citation = ref.textContent ?? '';
    button.textContent = `[${ref.textContent ?? ''}]`;
    ref.replaceWith(button);
  }
  return template.innerHTML;
}
