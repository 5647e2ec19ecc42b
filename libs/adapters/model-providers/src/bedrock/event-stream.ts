// AWS's binary event stream (`application/vnd.amazon.eventstream`) as messages: the bytes cut into frames (each
// starts with its total length, big-endian) and each frame decoded, checksums checked, by the AWS SDK's own codec
// (`@smithy/eventstream-codec`), loaded on first use.
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import { lazyModule } from '#kernel';
import { UpstreamError } from '../provider.port.js';

const codecModule = lazyModule<typeof import('@smithy/eventstream-codec')>('@smithy/eventstream-codec');
const utf8 = lazyModule<typeof import('@smithy/util-utf8')>('@smithy/util-utf8');

export type Message = ReturnType<EventStreamCodec['decode']>;

/** A frame's prelude: total length, headers length, prelude checksum. */
const PRELUDE = 12;
/** No event Bedrock sends comes near this; a bigger length is a broken stream, not a reason to allocate. */
const MAX_FRAME = 16 * 1024 * 1024;

export async function* eventFrames(bytes: AsyncIterable<Buffer>): AsyncIterable<Message> {
  const { toUtf8, fromUtf8 } = utf8();
  const codec = new (codecModule().EventStreamCodec)(toUtf8, fromUtf8);
  let pending: Buffer = Buffer.alloc(0);
  for await (const piece of bytes) {
    pending = pending.length ? Buffer.concat([pending, piece]) : piece;
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (length < PRELUDE + 4 || length > MAX_FRAME) throw broken();
      if (pending.length < length) break;
      let message: Message;
      try {
        message = codec.decode(pending.subarray(0, length));
      } catch {
        throw broken();
      }
      pending = pending.subarray(length);
      yield message;
    }
  }
  if (pending.length > 0) throw broken();
}

const broken = () => new UpstreamError('rejected', 'the upstream event stream was cut or malformed');
