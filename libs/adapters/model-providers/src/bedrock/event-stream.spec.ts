import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { eventFrames } from './event-stream.js';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const frame = (type: string, body: object) =>
  Buffer.from(
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: type },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8(JSON.stringify(body)),
    }),
  );

async function* chunks(...pieces: Buffer[]) {
  for (const piece of pieces) yield piece;
}

const read = async (bytes: AsyncIterable<Buffer>) => {
  const seen: string[] = [];
  for await (const message of eventFrames(bytes))
    seen.push(`${String(message.headers[':event-type']?.value)} ${toUtf8(message.body)}`);
  return seen;
};

describe('eventFrames (AWS event stream frames from bytes)', () => {
  it('decodes frames however the bytes are cut', async () => {
    const all = Buffer.concat([frame('a', { n: 1 }), frame('b', { n: 2 }), frame('c', { n: 3 })]);
    const expected = ['a {"n":1}', 'b {"n":2}', 'c {"n":3}'];
    expect(await read(chunks(all))).toEqual(expected);
    const bytewise = [...all].map((byte) => Buffer.from([byte]));
    expect(await read(chunks(...bytewise))).toEqual(expected);
  });

  it('refuses a cut or corrupted stream', async () => {
    const whole = frame('a', { n: 1 });
    await expect(read(chunks(whole.subarray(0, whole.length - 3)))).rejects.toThrow('cut or malformed');
    const corrupted = Buffer.from(whole);
    corrupted[corrupted.length - 6] ^= 0xff;
    await expect(read(chunks(corrupted))).rejects.toThrow('cut or malformed');
  });
});
