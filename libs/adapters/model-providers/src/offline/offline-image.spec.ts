import { crc32, inflateSync } from 'node:zlib';
import { ValidationError } from '#kernel';
import { ASPECT_RATIOS, RESOLUTIONS, type ImageRequest } from '../provider.port.js';
import { imageSize, offlineImage, validateMask } from './offline-image.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const never = () => new AbortController().signal;
const request = (prompt: string, extra: Partial<ImageRequest> = {}): ImageRequest => ({
  prompt,
  aspectRatio: '16:9',
  resolution: '1K',
  ...extra,
});

interface Chunk {
  readonly type: string;
  readonly data: Buffer;
}

/** Splits a PNG into its chunks, checking the signature and every CRC. */
const chunksOf = (png: Buffer): Chunk[] => {
  expect(png.subarray(0, 8).equals(SIGNATURE)).toBe(true);
  const chunks: Chunk[] = [];
  for (let offset = 8; offset < png.length;) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    expect(png.readUInt32BE(offset + 8 + length)).toBe(crc32(data, crc32(Buffer.from(type, 'latin1'))));
    chunks.push({ type, data });
    offset += 12 + length;
  }
  return chunks;
};

const EXPECTED: Record<ImageRequest['aspectRatio'], readonly [number, number]> = {
  '1:1': [1024, 1024],
  '4:3': [1024, 768],
  '3:4': [768, 1024],
  '16:9': [1024, 576],
  '9:16': [576, 1024],
};
const SCALE: Record<ImageRequest['resolution'], number> = { '1K': 1, '2K': 2, '4K': 4 };

describe('Offline image', () => {
  it('has the size of every aspect ratio and resolution in its IHDR header', async () => {
    for (const aspectRatio of ASPECT_RATIOS)
      for (const resolution of RESOLUTIONS) {
        const [width, height] = EXPECTED[aspectRatio].map((side) => side * SCALE[resolution]) as [
          number,
          number,
        ];
        const result = await offlineImage(
          request('a lighthouse at dusk', { aspectRatio, resolution }),
          never(),
        );
        expect({ aspectRatio, resolution, width: result.width, height: result.height }).toEqual({
          aspectRatio,
          resolution,
          width,
          height,
        });
        expect(result.mimeType).toBe('image/png');
        const png = Buffer.from(result.base64, 'base64');
        expect(png.subarray(0, 8).equals(SIGNATURE)).toBe(true);
        expect(png.toString('latin1', 12, 16)).toBe('IHDR');
        expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([width, height]);
        expect([...png.subarray(24, 29)]).toEqual([8, 2, 0, 0, 0]);
        expect(imageSize(aspectRatio, resolution)).toEqual({ width, height });
      }
  });

  it('is a well-formed PNG whose pixel data has the announced size', async () => {
    const result = await offlineImage(request('a lighthouse at dusk', { aspectRatio: '3:4' }), never());
    const chunks = chunksOf(Buffer.from(result.base64, 'base64'));
    expect(chunks[0]!.type).toBe('IHDR');
    expect(chunks.at(-1)).toEqual({ type: 'IEND', data: Buffer.alloc(0) });
    expect(chunks.find((chunk) => chunk.type === 'tEXt')?.data.toString('latin1')).toContain('offline');
    const pixels = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
    expect(pixels.length).toBe(result.height * (1 + 3 * result.width));
    for (let row = 0; row < result.height; row++) expect(pixels[row * (1 + 3 * result.width)]).toBe(1);
  });

  it('gives the same bytes for the same prompt and different bytes for different prompts', async () => {
    const first = await offlineImage(request('a red fox in the snow'), never());
    expect(await offlineImage(request('a red fox in the snow'), never())).toEqual(first);
    const other = await offlineImage(request('a blue whale at sea'), never());
    expect(other.base64).not.toBe(first.base64);
    expect([other.width, other.height]).toEqual([first.width, first.height]);
  });

  it('makes a 4K image: a PNG whose header says 4096 × 4096', async () => {
    // Its speed is the benchmark's business: a time bound here failed on a loaded machine.
    const result = await offlineImage(request('speed', { resolution: '4K', aspectRatio: '1:1' }), never());
    const png = Buffer.from(result.base64, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([4096, 4096]);
    expect([result.width, result.height]).toEqual([4096, 4096]);
  });

  it('accepts a PNG or JPEG data URL as mask and refuses anything else', async () => {
    const png = `data:image/png;base64,${Buffer.concat([SIGNATURE, Buffer.alloc(7)]).toString('base64')}`;
    const jpeg = `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]).toString('base64')}`;
    expect(() => validateMask(png)).not.toThrow();
    expect(() => validateMask(jpeg)).not.toThrow();
    await expect(offlineImage(request('masked', { mask: png }), never())).resolves.toMatchObject({
      width: 1024,
    });
    for (const mask of [
      '',
      'https://example.com/mask.png',
      'data:image/gif;base64,R0lGODlhAQABAAAAACw=',
      'data:image/png,rawbytes',
      'data:image/png;base64,not base64!',
      jpeg.replace('image/jpeg', 'image/png'),
    ]) {
      expect(() => validateMask(mask)).toThrow(ValidationError);
      await expect(offlineImage(request('masked', { mask }), never())).rejects.toMatchObject({
        code: 'invalid_mask',
        param: 'mask',
      });
    }
  });

  it('refuses an unknown aspect ratio or resolution', () => {
    const bad = (aspectRatio: string, resolution: string) =>
      imageSize(aspectRatio as ImageRequest['aspectRatio'], resolution as ImageRequest['resolution']);
    expect(() => bad('2:1', '1K')).toThrow(expect.objectContaining({ param: 'aspectRatio' }));
    expect(() => bad('1:1', '8K')).toThrow(expect.objectContaining({ param: 'resolution' }));
  });

  it('stops when aborted', async () => {
    await expect(offlineImage(request('x'), AbortSignal.abort())).rejects.toMatchObject({
      name: 'AbortError',
    });
    const controller = new AbortController();
    const pending = offlineImage(request('x', { resolution: '4K' }), controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
