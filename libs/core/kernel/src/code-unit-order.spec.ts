import { byCodeUnits } from './code-unit-order.js';
import { seededRandom } from './seeded-random.js';

describe('byCodeUnits', () => {
  it('orders Skill-style names (lowercase letters, digits, single hyphens) as a collation does', () => {
    const random = seededRandom(7);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const part = () =>
      Array.from(
        { length: 1 + Math.floor(random() * 6) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
    const names = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + Math.floor(random() * 3) }, part).join('-'),
    );
    names.push('pdf', 'pdf-tools', 'pdf2', 'pdfa', 'a-b', 'ab', 'a0');
    expect(names.toSorted(byCodeUnits)).toEqual(names.toSorted((a, b) => a.localeCompare(b, 'en')));
  });

  it('orders ISO times and ids as their characters do, equal ones as equal', () => {
    expect(['2026-11-29T02:41:24.045Z', '2026-01-02T00:00:00.000Z'].toSorted(byCodeUnits)).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-11-29T02:41:24.045Z',
    ]);
    expect(byCodeUnits('msg_01a2', 'msg_01a2')).toBe(0);
    expect(byCodeUnits('B', 'a')).toBeLessThan(0);
  });
});
