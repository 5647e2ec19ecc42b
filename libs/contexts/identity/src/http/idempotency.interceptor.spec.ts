import { idempotencyKeyOf } from './idempotency.interceptor.js';

describe('reading the Idempotency-Key header (every keyed POST, the conversation turn too)', () => {
  it('takes 1 to 255 printable ASCII characters, and no header as no key', () => {
    expect(idempotencyKeyOf('retry-1_A.b~')).toBe('retry-1_A.b~');
    expect(idempotencyKeyOf('k'.repeat(255))).toBe('k'.repeat(255));
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
  });

  it('answers 400 invalid_idempotency_key to anything else (empty, too long, spaces, repeated headers)', () => {
    for (const header of ['', 'k'.repeat(256), 'two words', 'naïve', ['a', 'b']])
      expect(() => idempotencyKeyOf(header)).toThrow(
        expect.objectContaining({ code: 'invalid_idempotency_key', param: 'Idempotency-Key' }),
      );
  });
});
