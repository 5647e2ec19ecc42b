// Checks an audit export in the browser, independently of the server that wrote it: each line's hash must be the
// SHA-256 of the previous line's hash followed by its entry as JSON with keys sorted at every depth, the first line's
// previous hash 64 zeros, and the trailer must count the lines, name their first and last log positions and the last
// hash. The same rules as the CLI's `audit verify`, written with WebCrypto.

export type Verdict =
  | { readonly ok: true; readonly count: number; readonly headHash: string }
  | { readonly ok: false; readonly line: number; readonly reason: Reason };

export type Reason =
  | 'empty'
  | 'notJson'
  | 'trailerEarly'
  | 'trailerCount'
  | 'trailerHash'
  | 'trailerRange'
  | 'noTrailer'
  | 'badLink'
  | 'badHash';

const SEED = '0'.repeat(64);

/** JSON text with object keys in code-unit order at every depth (undefined members left out). */
function sorted(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sorted).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((key) => `${JSON.stringify(key)}:${sorted((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

interface Trailer {
  readonly count: number;
  readonly fromPosition: number | null;
  readonly toPosition: number | null;
  readonly headHash: string;
}

const fail = (line: number, reason: Reason): Verdict => ({ ok: false, line, reason });

function checkTrailer(
  trailer: Trailer,
  line: number,
  count: number,
  head: string,
  range: [unknown, unknown],
) {
  if (trailer.count !== count) return fail(line, 'trailerCount');
  if (trailer.headHash !== head) return fail(line, 'trailerHash');
  if (trailer.fromPosition !== range[0] || trailer.toPosition !== range[1]) return fail(line, 'trailerRange');
  return { ok: true, count, headHash: head } as const;
}

export async function verifyExport(text: string): Promise<Verdict> {
  const lines = text.split('\n').filter((line, index, all) => line !== '' || index < all.length - 1);
  if (lines.length === 0) return fail(0, 'empty');
  let head = SEED;
  const range: [unknown, unknown] = [null, null];
  for (let index = 0; index < lines.length; index++) {
    let parsed: { trailer?: Trailer; entry?: { position?: unknown }; prevHash?: string; hash?: string };
    try {
      parsed = JSON.parse(lines[index]!) as typeof parsed;
    } catch {
      return fail(index + 1, 'notJson');
    }
    if (parsed === null || typeof parsed !== 'object') return fail(index + 1, 'notJson');
    const last = index === lines.length - 1;
    if (parsed.trailer) {
      return last
        ? checkTrailer(parsed.trailer, index + 1, index, head, range)
        : fail(index + 1, 'trailerEarly');
    }
    if (last) return fail(index + 1, 'noTrailer');
    if (parsed.prevHash !== head) return fail(index + 1, 'badLink');
    if (parsed.hash !== (await sha256Hex(head + sorted(parsed.entry)))) return fail(index + 1, 'badHash');
    const position = typeof parsed.entry?.position === 'number' ? parsed.entry.position : null;
    if (index === 0) range[0] = position;
    range[1] = position;
    head = parsed.hash;
  }
  return fail(lines.length, 'noTrailer');
}
