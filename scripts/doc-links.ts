// Relative links of the Markdown pages and the headings they point at, read as GitHub renders them.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** README.md, bench/RESULTS.md and every page under docs/, relative to the root. */
export function markdownPages(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path));
  return ['README.md', 'bench/RESULTS.md', ...docs.sort()];
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replaceAll(' ', '-');
    let anchor = base;
    for (let repeat = 1; anchors.has(anchor); repeat++) anchor = `${base}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every relative link of the pages whose file, or whose heading, does not exist: `page: target`. */
export function brokenLinks(root: string): string[] {
  const broken: string[] = [];
  for (const page of markdownPages(root)) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? join(root, page) : join(root, dirname(page), path);
      const exists = existsSync(file);
      const anchored =
        anchor === undefined ||
        (exists && file.endsWith('.md') && anchorsOf(readFileSync(file, 'utf8')).has(anchor));
      if (!exists || !anchored) broken.push(`${page}: ${target} (${relative(root, file)})`);
    }
  }
  return broken;
}
