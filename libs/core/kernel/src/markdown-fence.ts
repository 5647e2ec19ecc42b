// Text quoted in a prompt inside a Markdown code fence that nothing in it can close.

/**
 * Backticks enough to fence `text`: one more than its longest run of backticks, and at least three. Found with
 * `indexOf` (no regular expression, no array of every run): a long pasted document costs a scan, and a text of a
 * hundred thousand runs cannot overflow the stack as spreading them into `Math.max` did.
 */
export function fenceFor(text: string): string {
  let longest = 0;
  for (let at = text.indexOf('`'); at !== -1;) {
    let end = at + 1;
    while (text.charCodeAt(end) === 96) end++;
    if (end - at > longest) longest = end - at;
    at = text.indexOf('`', end);
  }
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `label`, then `text` inside a fence made for it (fenceFor). */
export function fenced(label: string, text: string): string {
  const fence = fenceFor(text);
  return `${label}\n${fence}\n${text}\n${fence}`;
}
