import { canonicalJson, chainLines, verifyChain } from './hash-chain.js';

const entries = [1, 2, 3].map((position) => ({
  position,
  action: `a${position}`,
  changes: [{ field: 'x', after: position }],
}));

describe('hash chain', () => {
  it('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });

  it('an export verifies, naming its count and head hash', () => {
    const lines = chainLines(entries);
    const verdict = verifyChain(lines.join('\n') + '\n');
    expect(verdict).toMatchObject({ ok: true, count: 3 });
    expect(JSON.parse(lines.at(-1)!).trailer).toMatchObject({ count: 3, fromPosition: 1, toPosition: 3 });
  });

  it('fails after any one byte of the file is changed', () => {
    const text = chainLines(entries).join('\n') + '\n';
    let failures = 0;
    for (let at = 0; at < text.length - 1; at++) {
      const code = text.charCodeAt(at);
      const changed =
        text.slice(0, at) + String.fromCharCode(code === 0x31 ? 0x32 : code ^ 1) + text.slice(at + 1);
      if (!verifyChain(changed).ok) failures += 1;
    }
    expect(failures).toBe(text.length - 1);
  });

  it('fails when a line is removed, reordered, or the trailer is cut off', () => {
    const lines = chainLines(entries);
    expect(verifyChain([lines[0], lines[2], lines[3]].join('\n')).ok).toBe(false);
    expect(verifyChain([lines[1], lines[0], lines[2], lines[3]].join('\n')).ok).toBe(false);
    expect(verifyChain(lines.slice(0, 3).join('\n'))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/trailer/),
    });
  });
});
