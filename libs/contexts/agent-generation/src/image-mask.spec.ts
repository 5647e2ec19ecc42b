import { validateMask } from './image-mask.js';

const dataUrl = (type: string, bytes: number[]) =>
  `data:image/${type};base64,${Buffer.from([...bytes, 0, 0, 0, 0, 0, 0, 0, 0]).toString('base64')}`;
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff, 0xe0];
const WEBP = [...Buffer.from('RIFF'), 1, 2, 3, 4, ...Buffer.from('WEBP')];
const invalidMask = expect.objectContaining({ kind: 'validation', code: 'invalid_mask', param: 'mask' });

describe('validateMask', () => {
  it('accepts base64 data URLs of PNG, JPEG and WebP images', () => {
    expect(() => validateMask(dataUrl('png', PNG))).not.toThrow();
    expect(() => validateMask(dataUrl('jpeg', JPEG))).not.toThrow();
    expect(() => validateMask(dataUrl('webp', WEBP))).not.toThrow();
  });

  it.each([
    ['a plain URL', 'https://example.com/mask.png'],
    ['another image type', dataUrl('gif', [...Buffer.from('GIF89a')])],
    ['no base64 marker', `data:image/png,${Buffer.from(PNG).toString('base64')}`],
    ['broken base64', 'data:image/png;base64,iVBORw0KGgo$$$'],
    ['truncated base64', 'data:image/png;base64,iVBORw0KGgoAAA'],
    ['an empty payload', 'data:image/png;base64,'],
  ])('refuses %s', (_case, mask) => expect(() => validateMask(mask)).toThrow(invalidMask));

  it('refuses bytes that are not the declared type', () => {
    expect(() => validateMask(dataUrl('png', JPEG))).toThrow(
      expect.objectContaining({ code: 'invalid_mask', message: expect.stringContaining('not a png image') }),
    );
    expect(() => validateMask(dataUrl('webp', PNG))).toThrow(invalidMask);
  });
});
