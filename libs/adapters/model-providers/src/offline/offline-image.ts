// The offline image model: a deterministic PNG (8-bit RGB) of the requested aspect ratio and resolution, painted
// with a pattern derived from a hash of the prompt (a diagonal gradient between two colours crossed by rings of a
// third), so different prompts give visibly different images and the same prompt the same bytes. The pattern is
// drawn in coordinates relative to the long side, so the three resolutions show the same picture. Rows are filtered
// (PNG "Sub") and deflated as they are produced, in batches: a 4K image never exists uncompressed in memory.
// A `mask` is only checked to be a PNG or JPEG data URL; `imageConfig` is ignored.
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflate } from 'node:zlib';
import { ValidationError } from '#kernel/thread-kit';
import { ASPECT_RATIOS, RESOLUTIONS, type ImageRequest, type ImageResult } from '../provider.port.js';

/** Long side in pixels per resolution. */
export const LONG_SIDE: Readonly<Record<ImageRequest['resolution'], number>> = {
  '1K': 1024,
  '2K': 2048,
  '4K': 4096,
};

const RATIOS: Readonly<Record<ImageRequest['aspectRatio'], readonly [number, number]>> = {
  '1:1': [1, 1],
  '4:3': [4, 3],
  '3:4': [3, 4],
  '16:9': [16, 9],
  '9:16': [9, 16],
};

/** Width and height of an image: the long side per resolution, the short side rounded to the ratio. */
export const imageSize = (
  aspectRatio: ImageRequest['aspectRatio'],
  resolution: ImageRequest['resolution'],
): { width: number; height: number } => {
  if (!ASPECT_RATIOS.includes(aspectRatio))
    throw new ValidationError(
      'invalid_aspect_ratio',
      `aspect ratio must be one of ${ASPECT_RATIOS.join(', ')}`,
      'aspectRatio',
    );
  if (!RESOLUTIONS.includes(resolution))
    throw new ValidationError(
      'invalid_resolution',
      `resolution must be one of ${RESOLUTIONS.join(', ')}`,
      'resolution',
    );
  const [w, h] = RATIOS[aspectRatio];
  const long = LONG_SIDE[resolution];
  return w >= h
    ? { width: long, height: Math.round((long * h) / w) }
    : { width: Math.round((long * w) / h), height: long };
};

const MASK = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff]);

/** Throws a `ValidationError` (param `mask`) unless `mask` is a base64 data URL of a PNG or JPEG image. */
export const validateMask = (mask: string): void => {
  const match = MASK.exec(mask);
  if (!match || match[2].length % 4 !== 0)
    throw new ValidationError(
      'invalid_mask',
      'mask must be a base64 data URL of a PNG or JPEG image (data:image/png;base64,… or data:image/jpeg;base64,…)',
      'mask',
    );
  const head = Buffer.from(match[2].slice(0, 16), 'base64');
  const signature = match[1] === 'png' ? PNG_SIGNATURE : JPEG_SIGNATURE;
  if (!head.subarray(0, signature.length).equals(signature))
    throw new ValidationError(
      'invalid_mask',
      `mask is declared image/${match[1]} but is not a ${match[1].toUpperCase()} image`,
      'mask',
    );
};

type Rgb = readonly [number, number, number];

/** HSL (hue in degrees, saturation and lightness in [0, 1]) to 8-bit RGB. */
const hsl = (hue: number, saturation: number, lightness: number): Rgb => {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
};

interface Pattern {
  readonly from: Rgb;
  readonly to: Rgb;
  readonly ring: Rgb;
  readonly cos: number;
  readonly sin: number;
  readonly centreX: number;
  readonly centreY: number;
  readonly rings: number;
}

const patternOf = (prompt: string): Pattern => {
  const hash = createHash('sha256').update(prompt).digest();
  const unit = (offset: number) => hash.readUInt16BE(offset) / 0x10000;
  const hue = unit(0) * 360;
  const angle = unit(2) * 2 * Math.PI;
  return {
    from: hsl(hue, 0.55 + 0.3 * unit(4), 0.3 + 0.2 * unit(6)),
    to: hsl((hue + 90 + 180 * unit(8)) % 360, 0.55 + 0.3 * unit(10), 0.55 + 0.2 * unit(12)),
    ring: hsl((hue + 180) % 360, 0.7, 0.5 + 0.3 * unit(14)),
    cos: Math.cos(angle),
    sin: Math.sin(angle),
    centreX: 0.15 + 0.7 * unit(16),
    centreY: 0.15 + 0.7 * unit(18),
    rings: 4 + Math.floor(unit(20) * 10),
  };
};

const RING_MIX = 0.3;
/** Rows per deflate write: about 1.5 MB at 4K. */
const ROWS_PER_BATCH = 128;

// Hoisted: a global lookup per pixel is slow where the global object is a proxy (vm contexts, as under Jest).
const { sqrt } = Math;

/** Filtered scanlines ("Sub" filter), in batches of rows. */
function* scanlines(pattern: Pattern, width: number, height: number): Generator<Buffer> {
  const long = Math.max(width, height);
  const stride = 1 + width * 3;
  const { from, to, ring, cos, sin } = pattern;
  const spread = Math.abs(cos) * width + Math.abs(sin) * height;
  const step = cos / spread;
  const centreX = pattern.centreX * width;
  const centreY = pattern.centreY * height;
  const ringScale = (pattern.rings * 2) / long;
  // Per channel: value(t) = from + (to - from) × t; in a ring, mixed with the ring colour.
  const [r0, g0, b0] = from;
  const [rd, gd, bd] = [to[0] - r0, to[1] - g0, to[2] - b0];
  const [rr, gr, br] = ring.map((channel) => channel * RING_MIX);
  const keep = 1 - RING_MIX;
  const row = new Uint8Array(width * 3);
  for (let top = 0; top < height; top += ROWS_PER_BATCH) {
    const rows = Math.min(ROWS_PER_BATCH, height - top);
    const batch = Buffer.allocUnsafe(rows * stride);
    for (let r = 0; r < rows; r++) {
      const y = top + r;
      const dy = (y - centreY) * ringScale;
      const dy2 = dy * dy;
      let t = 0.5 + ((y - height / 2) * sin - (width / 2) * cos) / spread;
      for (let x = 0, i = 0; x < width; x++, i += 3, t += step) {
        const dx = (x - centreX) * ringScale;
        let red = r0 + rd * t;
        let green = g0 + gd * t;
        let blue = b0 + bd * t;
        if ((sqrt(dx * dx + dy2) | 0) & 1) {
          red = red * keep + rr;
          green = green * keep + gr;
          blue = blue * keep + br;
        }
        // All values lie in [0, 255]: adding 0.5 and truncating rounds.
        row[i] = red + 0.5;
        row[i + 1] = green + 0.5;
        row[i + 2] = blue + 0.5;
      }
      const offset = r * stride;
      batch[offset] = 1; // Sub: each byte minus the same channel of the pixel to its left.
      batch[offset + 1] = row[0];
      batch[offset + 2] = row[1];
      batch[offset + 3] = row[2];
      for (let i = 3; i < row.length; i++) batch[offset + 1 + i] = (row[i] - row[i - 3]) & 0xff;
    }
    yield batch;
  }
}

const chunk = (type: string, data: Buffer): Buffer => {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(data.length, 0);
  header.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(header.subarray(4))), 0);
  return Buffer.concat([header, data, crc]);
};

const SOFTWARE = Buffer.from(
  'Software\0Agent Platform offline image stand-in (not a generated image)',
  'latin1',
);

export const offlineImage = async (request: ImageRequest, signal: AbortSignal): Promise<ImageResult> => {
  signal.throwIfAborted();
  const { width, height } = imageSize(request.aspectRatio, request.resolution);
  if (request.mask !== undefined) validateMask(request.mask);
  const compressed: Buffer[] = [];
  try {
    await pipeline(
      scanlines(patternOf(request.prompt), width, height),
      createDeflate({ level: 6, chunkSize: 256 * 1024 }),
      async (source: AsyncIterable<Buffer>) => {
        for await (const data of source) compressed.push(data);
      },
      { signal },
    );
  } catch (error) {
    signal.throwIfAborted();
    throw error;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, adaptive filtering, no interlace
  const png = Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('tEXt', SOFTWARE),
    ...compressed.map((data) => chunk('IDAT', data)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return { base64: png.toString('base64'), mimeType: 'image/png', width, height };
};
