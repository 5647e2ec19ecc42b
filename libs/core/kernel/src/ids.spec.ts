import { createHash } from 'node:crypto';
import { v5 as uuidv5, validate, version } from 'uuid';
import { derivedEventId, derivedTimedEventId, newId, sha256 } from './ids.js';

const NAMESPACE = '2c1f4a8e-7d57-4d43-9a5e-0b6d3c2f9e11';

describe('derivedEventId', () => {
  // Ids already in logs were made by the uuid package's v5: a re-sent batch must find the same ids.
  it.each([
    ['call_0196a8f2c4e07b3a9d1e5f7a2b4c6d8e'],
    [''],
    ['conv_1', 'message', '3'],
    ['é☃𝄞 – 日本語', 'x'],
  ])('gives the same id as the uuid package’s v5 for %p', (...parts: string[]) => {
    expect(derivedEventId(...parts)).toBe(uuidv5(parts.join('\u0000'), NAMESPACE));
  });

  it('is a valid version-5 UUID, deterministic, and differs between names', () => {
    const id = derivedEventId('call_a');
    expect(validate(id) && version(id)).toBe(5);
    expect(derivedEventId('call_a')).toBe(id);
    expect(derivedEventId('call_b')).not.toBe(id);
  });

  it('refuses a lone surrogate as before (it has no UTF-8)', () => {
    expect(() => derivedEventId('\ud800')).toThrow(URIError);
  });
});

describe('derivedTimedEventId', () => {
  const at = Date.parse('2026-11-24T18:12:44.123Z');

  it('is a valid version-8 UUID whose first 48 bits are the instant, and the rest derivedEventId’s hash', () => {
    const id = derivedTimedEventId(at, 'model-call', 'call_a');
    expect(validate(id) && version(id)).toBe(8);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    expect(id.slice(15)).toBe(derivedEventId('model-call', 'call_a').slice(15));
  });

  it('is deterministic, differs between names, and sorts by the instant whatever the name', () => {
    expect(derivedTimedEventId(at, 'x')).toBe(derivedTimedEventId(at, 'x'));
    expect(derivedTimedEventId(at, 'x')).not.toBe(derivedTimedEventId(at, 'y'));
    const ids = Array.from({ length: 50 }, (_, i) => derivedTimedEventId(at + i * 7, `call_${50 - i}`));
    expect([...ids].sort()).toEqual(ids);
  });

  it('keeps an instant outside a UUID’s time field, or none, inside it', () => {
    expect(derivedTimedEventId(Number.NaN, 'x').slice(0, 13)).toBe('00000000-0000');
    expect(derivedTimedEventId(-5, 'x').slice(0, 13)).toBe('00000000-0000');
    expect(derivedTimedEventId(2 ** 60, 'x').slice(0, 13)).toBe('ffffffff-ffff');
  });
});

describe('newId', () => {
  it('is the prefix and a version-7 UUID’s 32 hex digits, fresh each time', () => {
    const ids = Array.from({ length: 100 }, () => newId('call'));
    for (const id of ids) {
      expect(id).toMatch(/^call_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      const hex = id.slice(5);
      const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      expect(validate(uuid) && version(uuid)).toBe(7);
    }
    expect(new Set(ids).size).toBe(100);
  });
});

describe('sha256', () => {
  it('is the hex SHA-256 of the UTF-8 text', () => {
    for (const text of ['', 'ap_key', 'é☃𝄞'])
      expect(sha256(text)).toBe(createHash('sha256').update(text).digest('hex'));
  });
});
