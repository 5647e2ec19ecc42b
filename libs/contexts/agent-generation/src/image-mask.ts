// The inpainting mask of generateImage: a base64 data URL of a PNG, JPEG or WebP image. Checked here, before any model
// is called, so every provider gets a well-formed mask and a client learns of a bad one with a 400 naming `mask`.
import { ValidationError } from '#kernel';

const DATA_URL = /^data:image\/(png|jpeg|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

const looksLike: Record<string, (head: Buffer) => boolean> = {
  png: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (head) => head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  webp: (head) => head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP',
};

export function validateMask(mask: string): void {
  const match = DATA_URL.exec(mask);
  if (!match || match[2]!.length % 4 !== 0)
    throw new ValidationError(
      'invalid_mask',
      'mask must be a base64 data URL of a PNG, JPEG or WebP image (data:image/png;base64,…)',
      'mask',
    );
  const [, type, data] = match as unknown as [string, string, string];
  if (!looksLike[type]!(Buffer.from(data.slice(0, 16), 'base64')))
    throw new ValidationError(
      'invalid_mask',
      `mask is declared image/${type} but is not a ${type} image`,
      'mask',
    );
}
