import { pooledRandomBytes, randomInto } from './random-pool.js';

describe('pooledRandomBytes', () => {
  it('hands out each pooled byte once, across refills, each call its own buffer', () => {
    // 12-byte IVs: 2,000 of them span six refills of the 4 KB pool; any repeat would be a reused pool slice.
    const seen = new Set<string>();
    const handedOut: Buffer[] = [];
    for (let i = 0; i < 2_000; i++) {
      const iv = pooledRandomBytes(12);
      expect(iv).toHaveLength(12);
      seen.add(iv.toString('hex'));
      handedOut.push(iv);
    }
    expect(seen.size).toBe(2_000);
    // Later draws neither change nor share the bytes handed out before.
    const first = Buffer.from(handedOut[0]!);
    for (let i = 0; i < 500; i++) pooledRandomBytes(32);
    expect(handedOut[0]!.equals(first)).toBe(true);
    // Each in memory of its own: no other buffer's bytes behind it.
    expect(handedOut[0]!.buffer.byteLength).toBe(12);
    // Not all zeros, and spread over every byte value: 24,000 bytes of a CSPRNG leave none of 256 out.
    const values = new Set(handedOut.flatMap((bytes) => [...bytes]));
    expect(values.size).toBe(256);
  });

  it("fills a caller's array from the same pool, never repeating what it handed out", () => {
    const scratch = new Uint8Array(16);
    const drawn = new Set<string>();
    for (let i = 0; i < 1_000; i++) drawn.add(Buffer.from(randomInto(scratch)).toString('hex'));
    for (let i = 0; i < 1_000; i++) drawn.add(pooledRandomBytes(16).toString('hex'));
    expect(drawn.size).toBe(2_000);
    expect(() => randomInto(new Uint8Array(257))).toThrow(RangeError);
  });

  it('refuses sizes it does not pool', () => {
    expect(() => pooledRandomBytes(257)).toThrow(RangeError);
    expect(() => pooledRandomBytes(-1)).toThrow(RangeError);
    expect(() => pooledRandomBytes(1.5)).toThrow(RangeError);
    expect(pooledRandomBytes(0)).toHaveLength(0);
  });
});
