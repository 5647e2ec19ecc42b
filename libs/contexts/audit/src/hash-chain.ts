// The export's hash chain: each line carries hash = sha256(previous hash + canonical JSON of its entry), the first
// starting from a fixed seed, and a final line names the range and the head hash. Changing, removing, adding or
// reordering any line breaks the chain, so an auditor can prove an export complete and untampered.
import { createHash } from 'node:crypto';
import { byCodeUnits } from '#kernel';

export const CHAIN_SEED = '0'.repeat(64);

/** JSON with object keys sorted at every depth: the same entry always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => byCodeUnits(a, b));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export const chainHash = (prevHash: string, entry: unknown): string =>
  createHash('sha256').update(prevHash).update(canonicalJson(entry)).digest('hex');

export interface ChainLine<T> {
  readonly entry: T;
  readonly prevHash: string;
  readonly hash: string;
}

export interface ChainTrailer {
  readonly trailer: {
    readonly count: number;
    readonly fromPosition: number | null;
    readonly toPosition: number | null;
    readonly headHash: string;
  };
}

/** The export's lines (JSON text, one per entry, then the trailer). */
export function chainLines<T extends { readonly position: number }>(entries: readonly T[]): string[] {
  let prev = CHAIN_SEED;
  const lines: string[] = [];
  for (const entry of entries) {
    const hash = chainHash(prev, entry);
    lines.push(JSON.stringify({ entry, prevHash: prev, hash } satisfies ChainLine<T>));
    prev = hash;
  }
  const trailer: ChainTrailer = {
    trailer: {
      count: entries.length,
      fromPosition: entries[0]?.position ?? null,
      toPosition: entries.at(-1)?.position ?? null,
      headHash: prev,
    },
  };
  lines.push(JSON.stringify(trailer));
  return lines;
}

export type ChainVerdict =
  | { readonly ok: true; readonly count: number; readonly headHash: string }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/** Checks an export's text: every line parses, links to the previous hash, hashes its entry, and the trailer agrees. */
export function verifyChain(text: string): ChainVerdict {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return { ok: false, line: 0, reason: 'the file is empty' };
  let prev = CHAIN_SEED;
  let count = 0;
  let firstPosition: number | null = null;
  let lastPosition: number | null = null;
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return { ok: false, line: number, reason: 'not valid JSON' };
    }
    if (!parsed || typeof parsed !== 'object')
      return { ok: false, line: number, reason: 'not a JSON object' };
    const isLast = index === lines.length - 1;
    if ('trailer' in parsed) {
      if (!isLast) return { ok: false, line: number, reason: 'a trailer before the end of the file' };
      const { trailer } = parsed as ChainTrailer;
      if (trailer.count !== count)
        return {
          ok: false,
          line: number,
          reason: `trailer counts ${trailer.count} entries, the file has ${count}`,
        };
      if (trailer.headHash !== prev)
        return { ok: false, line: number, reason: "the trailer's head hash does not match the chain" };
      if (trailer.fromPosition !== firstPosition || trailer.toPosition !== lastPosition)
        return { ok: false, line: number, reason: "the trailer's range does not match the entries" };
      return { ok: true, count, headHash: prev };
    }
    if (isLast) return { ok: false, line: number, reason: 'the trailer is missing (the file was cut short)' };
    const { entry, prevHash, hash } = parsed as Partial<ChainLine<{ position?: unknown }>>;
    if (prevHash !== prev)
      return { ok: false, line: number, reason: 'prevHash does not link to the line before' };
    if (hash !== chainHash(prev, entry))
      return { ok: false, line: number, reason: 'the hash does not match the entry' };
    const position = typeof entry?.position === 'number' ? entry.position : null;
    if (firstPosition === null) firstPosition = position;
    lastPosition = position;
    prev = hash;
    count += 1;
  }
  return { ok: false, line: lines.length, reason: 'the trailer is missing' };
}
