// Syntax highlighting of an answer's code blocks: highlight.js's core with the languages answers use most, in a chunk
// of its own that the chat loads only when an answer holds a code block (the page's first JavaScript stays small).
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

for (const [name, language] of Object.entries({
  bash,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
}))
  hljs.registerLanguage(name, language);

/**
 * Highlights the code blocks under `root` not highlighted yet. A block names its language (`language-x`); one that
 * names none, or one not loaded, stays plain (guessing costs every language's grammar on every block).
 */
export function highlightWithin(root: HTMLElement): void {
  for (const code of Array.from(root.querySelectorAll<HTMLElement>('pre code[class*="language-"]'))) {
    if (code.dataset.highlighted) continue;
    const language = /language-([\w+#-]+)/.exec(code.className)?.[1] ?? '';
    if (!hljs.getLanguage(language)) continue;
    hljs.highlightElement(code);
  }
}
