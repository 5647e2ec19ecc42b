// The JSON body of a chat request to an OpenAI-compatible upstream, as the chat transport (chat-transport.ts) sends
// it: `JSON.stringify` of the request, or, for a request carrying frozen messages (a conversation's history), the same
// JSON value made from the bytes those messages had before.

/**
 * Frozen messages are sent as the JSON they had before. A caller that sends the same message objects call after call
 * (a conversation's history, turn-prompt.ts) freezes them, so what was serialised cannot change (it freezes only
 * messages whose values never change). Each run of consecutive frozen messages is kept as its bytes, weakly by its
 * first message, with where each message ends: a run that starts with the same objects (the next turn's history: the
 * same messages and two more) sends the bytes of what it shares as they are and serialises only the rest, written
 * after them in the same buffer while nothing was written there (else into a new one). Serialising a 1,000-message
 * history (~150 KB) and encoding that string took ~1.5 ms of every turn, and any fresh buffer that size costs ~40 page
 * faults (~0.3 ms here): a big body goes to undici as pieces, the run's bytes among them, never copied into one.
 */
interface RunBytes {
  /** Not from Node's shared pool: what lies beyond `filled` is this run's to write. */
  readonly buffer: Buffer;
  /** How much of `buffer` was ever written; bytes below it never change (a request may be sending them). */
  filled: number;
}

interface FrozenRun {
  readonly messages: readonly object[];
  readonly bytes: RunBytes;
  /** The end of each message's JSON in `bytes.buffer` (a comma before each but the first). */
  readonly ends: readonly number[];
}

const frozenRuns = new WeakMap<object, FrozenRun>();

const COMMA = 0x2c;

const isFrozenMessage = (message: unknown): message is object =>
  typeof message === 'object' && message !== null && Object.isFrozen(message);

/** The JSON of consecutive frozen messages, comma-separated, reusing what a run starting with the same one had. */
function frozenRunBytes(messages: readonly object[]): Buffer {
  const first = messages[0]!;
  const known = frozenRuns.get(first);
  let shared = 0;
  if (known) {
    const most = Math.min(known.messages.length, messages.length);
    while (shared < most && known.messages[shared] === messages[shared]) shared++;
    if (shared === messages.length) return known.bytes.buffer.subarray(0, known.ends[shared - 1]);
  }
  const fresh = messages.slice(shared).map((message) => Buffer.from(JSON.stringify(message) ?? 'null'));
  // Other objects with the same JSON keep their bytes too: a turn's question is made for its prompt, and the next
  // turn has it again as read back from the history.
  let same = 0;
  while (known && same < fresh.length && shared + same < known.messages.length) {
    const at = shared + same;
    const from = at === 0 ? 0 : known.ends[at - 1]! + 1;
    if (!fresh[same]!.equals(known.bytes.buffer.subarray(from, known.ends[at]))) break;
    same++;
  }
  shared += same;
  const kept = shared > 0 ? known!.ends[shared - 1]! : 0;
  let bytes = known?.bytes;
  let size = kept;
  for (let i = same; i < fresh.length; i++) size += (size > 0 ? 1 : 0) + fresh[i]!.length;
  if (!bytes || (size > kept && (bytes.filled !== kept || bytes.buffer.length < size))) {
    const grown: RunBytes = { buffer: Buffer.allocUnsafeSlow(Math.max(1024, size * 2)), filled: kept };
    if (kept > 0) bytes!.buffer.copy(grown.buffer, 0, 0, kept);
    bytes = grown;
  }
  const ends = shared > 0 ? known!.ends.slice(0, shared) : [];
  let at = kept;
  for (let i = same; i < fresh.length; i++) {
    if (at > 0) bytes.buffer[at++] = COMMA;
    at += fresh[i]!.copy(bytes.buffer, at);
    ends.push(at);
  }
  bytes.filled = Math.max(bytes.filled, at);
  frozenRuns.set(first, { messages: [...messages], bytes, ends });
  return bytes.buffer.subarray(0, at);
}

/**
 * The request as undici sends it: `JSON.stringify(body)`, or, when its messages include frozen ones, the same JSON
 * value (`messages` first) in pieces, each run of frozen messages from what was serialised of it before.
 */
export function requestBody(body: object): string | Buffer[] {
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages) || !messages.some(isFrozenMessage)) return JSON.stringify(body);
  const pieces: Buffer[] = [];
  let text = '{"messages":[';
  for (let i = 0; i < messages.length;) {
    if (i > 0) text += ',';
    let end = i;
    while (end < messages.length && isFrozenMessage(messages[end])) end++;
    if (end === i) {
      text += JSON.stringify(messages[i++]) ?? 'null';
      continue;
    }
    pieces.push(Buffer.from(text), frozenRunBytes(messages.slice(i, end) as object[]));
    text = '';
    i = end;
  }
  const rest = JSON.stringify({ ...body, messages: undefined });
  pieces.push(Buffer.from(rest === '{}' ? `${text}]}` : `${text}],${rest.slice(1)}`));
  return pieces;
}

export const bytesOf = (pieces: readonly Buffer[]): number =>
  pieces.reduce((sum, piece) => sum + piece.length, 0);

/** Pieces of a small body copied into one (a copy costs less than a stream); a big body's streamed as they are. */
const SMALL_BODY = 64 * 1024;

export const sendable = (json: string | Buffer[]): string | Buffer | Buffer[] =>
  typeof json === 'string' || bytesOf(json) > SMALL_BODY ? json : Buffer.concat(json);
