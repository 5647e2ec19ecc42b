// Identifiers: time-ordered UUIDv7 with a short type prefix, so ids sort by creation and say what they name.
import { hash } from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import { randomInto } from './random-pool.js';

/**
 * An id's random bits, from the pool (one CSPRNG call per id cost about 25 µs on the gateway's hot path), into one
 * scratch array: uuid reads them at once.
 */
const idRandom = new Uint8Array(16);
const randomBytes16 = (): Uint8Array => randomInto(idRandom);

export const newEventId = (): string => uuidv7({ random: randomBytes16() });

const idBytes = Buffer.alloc(16);

/** `<prefix>_` and a UUIDv7's 32 hex digits (the bytes written as hex: half the cost of formatting and undashing). */
export const newId = (prefix: string): string => {
  uuidv7({ random: randomBytes16() }, idBytes);
  return `${prefix}_${idBytes.toString('hex')}`;
};

const NAMESPACE = '2c1f4a8e-7d57-4d43-9a5e-0b6d3c2f9e11';
const NAMESPACE_BYTES = Buffer.from(NAMESPACE.replaceAll('-', ''), 'hex');

/**
 * A deterministic event id: the same cause and name always give the same id, which makes re-sent appends no-ops.
 * A UUIDv5 (RFC 9562: SHA-1 of the namespace and the name's UTF-8, version and variant bits set), the same ids as
 * the `uuid` package's v5 gave, computed with one one-shot hash: the package's v5 parsed the namespace and encoded
 * the name through `encodeURIComponent` on every call, some 15 µs of each recorded model call.
 */
export const derivedEventId = (...parts: string[]): string => {
  const joined = parts.join('\u0000');
  // A lone surrogate has no UTF-8: the package's v5 refuses it (URIError), where Buffer would replace it.
  if (!joined.isWellFormed()) return uuidv5(joined, NAMESPACE);
  const name = Buffer.from(joined, 'utf8');
  const digest = hash('sha1', Buffer.concat([NAMESPACE_BYTES, name], 16 + name.length), 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** The largest Unix millisecond a UUID's 48-bit time field holds. */
const MAX_UUID_MS = 0xffff_ffff_ffff;

/**
 * `derivedEventId` that sorts by time: its first 48 bits are `atMs` (Unix milliseconds, as in a UUIDv7), the rest
 * its hash; marked version 8 (RFC 9562's custom layout: the bits after the time are a hash, not random). The same
 * instant and name always give the same id. For events appended at a high rate (one per model call): the event store's
 * unique index of ids takes each near its end, where a v5 id lands on a random page of it. At 100,000 events an
 * append of SQLite rows with v5 ids cost 33–40 µs a row, with time-ordered ids 9–12 µs (each random row dirtied a
 * page of the index, written whole to the WAL at commit).
 */
export const derivedTimedEventId = (atMs: number, ...parts: string[]): string => {
  const ms = Number.isFinite(atMs) ? Math.min(Math.max(Math.trunc(atMs), 0), MAX_UUID_MS) : 0;
  const time = ms.toString(16).padStart(12, '0');
  // derivedEventId's `xxxxxxxx-xxxx-5xxx-…`: the time replaces its first 12 digits, 8 its version digit.
  return `${time.slice(0, 8)}-${time.slice(8)}-8${derivedEventId(...parts).slice(15)}`;
};

/** SHA-256 of a string's UTF-8, in hex (one-shot: a fifth of `createHash(…).update(…).digest(…)`'s cost). */
export const sha256 = (text: string): string => hash('sha256', text);
