// Bytes to text for the text formats: strict UTF-8 (a BOM is dropped), and a check that the result reads as text
// rather than binary that happens to be valid UTF-8 (NULs, or more than a sliver of control characters).
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The UTF-8 text of `bytes`, or null when they are not valid UTF-8. */
export const decodeUtf8 = (bytes: Uint8Array): string | null => {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
};

const SAMPLE_CHARS = 65_536;
/** C0 controls other than tab, line feed, form feed and carriage return, plus DEL; NUL is never text. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0001-\u0008\u000b\u000e-\u001f\u007f]/g;
const MAX_CONTROL_SHARE = 0.01;

export const readsAsText = (text: string): boolean => {
  if (text.includes('\u0000')) return false;
  const sample = text.slice(0, SAMPLE_CHARS);
  const controls = sample.match(CONTROL)?.length ?? 0;
  return controls <= sample.length * MAX_CONTROL_SHARE;
};
