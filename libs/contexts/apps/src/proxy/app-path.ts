// The one path below `/app/{id}` the proxy decides on and forwards. Servers read a raw path in different ways (Express
// matches without case, Tomcat drops `;params`, many merge `//` or decode `%2f` into a slash), so the session rule
// decided on the raw text could be passed by a spelling the App reads as `/admin`. Instead the path is normalised once
// here, the decision is made on the result, and exactly that result is what the App receives. Spellings that have no
// single reading (an encoded slash or backslash, a backslash, a control character, a double encoding, a climb above
// the App's root) are refused.

export type AppPath = { readonly path: string } | { readonly refused: string };

/** Characters a path segment may carry unencoded (RFC 3986 pchar, less `;`: parameters are stripped). */
const SEGMENT_SAFE = /[A-Za-z0-9\-._~!$&'()*+,=:@]/;

const encodeSegment = (segment: string): string =>
  Array.from(segment, (char) => (SEGMENT_SAFE.test(char) ? char : encodeURIComponent(char))).join('');

/**
 * `rawPath` (the part after `/app/{id}`, before any `?`, starting with `/`) decoded once, dot segments resolved,
 * repeated slashes merged, each segment's `;params` and surrounding spaces stripped, then encoded again; or why it is
 * refused.
 */
export function normaliseAppPath(rawPath: string): AppPath {
  if (/%(2f|5c)/i.test(rawPath) || rawPath.includes('\\'))
    return { refused: 'the path has an encoded slash or a backslash' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return { refused: 'the path is not valid percent-encoding' };
  }
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f-\u009f]/.test(decoded)) return { refused: 'the path has a control character' };
  if (/%[0-9a-f]{2}/i.test(decoded)) return { refused: 'the path is encoded twice' };
  const segments: string[] = [];
  const parts = decoded.split('/');
  for (const part of parts) {
    const segment = part.split(';', 1)[0]!.trim();
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.pop() === undefined) return { refused: "the path climbs above the App's root" };
      continue;
    }
    segments.push(segment);
  }
  // A trailing slash (or a final dot segment) keeps meaning a folder to the App.
  const last = parts.at(-1)!.split(';', 1)[0]!.trim();
  const folder = segments.length > 0 && (last === '' || last === '.' || last === '..');
  return { path: `/${segments.map(encodeSegment).join('/')}${folder ? '/' : ''}` };
}
