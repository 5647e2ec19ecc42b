// Bytes to text for the text formats: UTF-8 (a BOM is dropped), UTF-16 with its byte-order mark, and otherwise the
// Windows-1252 that legacy editors save (a superset of Latin-1, every byte a character); and a check that the result
// reads as text rather than binary that happens to decode (NULs, or more than a sliver of control characters).
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF16LE = new TextDecoder('utf-16le', { fatal: true });
const UTF16BE = new TextDecoder('utf-16be', { fatal: true });
const WINDOWS_1252 = new TextDecoder('windows-1252');
const SAMPLE_CHARS = 65_536;

/** The UTF-8 text of `bytes`, or null when they are not valid UTF-8. */
export const decodeUtf8 = (bytes: Uint8Array): string | null => {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
};

const strict = (decoder: InstanceType<typeof TextDecoder>, bytes: Uint8Array): string | null => {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
};

/** Characters text is made of: letters, marks, numbers, punctuation, symbols and spaces. */
const TEXT_CHAR = /[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Z}\s]/gu;
const MIN_TEXT_SHARE = 0.95;

/**
 * UTF-16 after its byte-order mark, when it reads as text: binary behind two bytes that happen to be a mark decodes
 * too, but into unassigned and private-use characters a text is not made of.
 */
const decodeUtf16 = (decoder: InstanceType<typeof TextDecoder>, bytes: Uint8Array): string | null => {
  const text = strict(decoder, bytes);
  if (text === null) return null;
  const sample = text.slice(0, SAMPLE_CHARS);
  return (sample.match(TEXT_CHAR)?.length ?? 0) >= sample.length * MIN_TEXT_SHARE ? text : null;
};

/** Text with a Unicode signature: valid UTF-8, or UTF-16 that starts with its byte-order mark. Null otherwise. */
export const decodeUnicode = (bytes: Uint8Array): string | null => {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decodeUtf16(UTF16LE, bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decodeUtf16(UTF16BE, bytes);
  return decodeUtf8(bytes);
};

/** The text of a text document: Unicode when it decodes as such, else Windows-1252. */
export const decodeText = (bytes: Uint8Array): string => decodeUnicode(bytes) ?? WINDOWS_1252.decode(bytes);

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
