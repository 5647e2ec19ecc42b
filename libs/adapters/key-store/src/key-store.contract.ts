// One contract for every KeyStore adapter (SQLite always, MongoDB when MONGODB_URI is set), with ContentCipher on
// top: what crypto-shredding promises is that content sealed under a destroyed key can never be read again.
import { randomBytes, randomUUID } from 'node:crypto';
import { ContentCipher, SealedContentError } from './content-cipher.js';
import type { KeyStore } from './key-store.port.js';
import { DataKeyUnreadableError } from './key-wrapping.js';

export interface KeyStoreUnderTest {
  /** Opens the adapter over the suite's storage (the same file or database every time), wrapping under masterKey. */
  open(masterKey?: Buffer): Promise<KeyStore>;
  /** The bytes the adapter holds for a key, exactly as stored (to show whether they are wrapped). */
  storedBytes(keyId: string): Promise<Buffer | null>;
  /** Removes what the suite created (its directory, its database), after every store is closed. */
  dispose?(): Promise<void>;
}

const freshId = (prefix = 'key'): string => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/** Counts the calls a cipher makes, to show a listing needs one lookup. */
function counting(store: KeyStore): {
  store: KeyStore;
  calls: { obtain: number; obtainMany: number; getMany: number };
} {
  const calls = { obtain: 0, obtainMany: 0, getMany: 0 };
  return {
    calls,
    store: {
      obtain: (keyId, group) => {
        calls.obtain++;
        return store.obtain(keyId, group);
      },
      obtainMany: (wanted) => {
        calls.obtainMany++;
        return store.obtainMany(wanted);
      },
      getMany: (keyIds) => {
        calls.getMany++;
        return store.getMany(keyIds);
      },
      destroy: (keyId) => store.destroy(keyId),
      destroyGroup: (group) => store.destroyGroup(group),
      close: () => store.close(),
    },
  };
}

/** Replaces one character of the part `index` (3 = iv, 4 = tag, 5 = ciphertext) of a sealed value. */
function alter(sealed: string, index: number): string {
  const parts = sealed.split(':');
  const part = parts[index]!;
  const at = Math.floor(part.length / 2);
  parts[index] = `${part.slice(0, at)}${part[at] === 'A' ? 'B' : 'A'}${part.slice(at + 1)}`;
  return parts.join(':');
}

export function keyStoreContract(adapter: string, subjectOf: () => Promise<KeyStoreUnderTest>): void {
  describe(`KeyStore contract: ${adapter}`, () => {
    let subject: KeyStoreUnderTest;
    let store: KeyStore;
    let cipher: ContentCipher;
    const opened: KeyStore[] = [];
    const open = async (masterKey?: Buffer): Promise<KeyStore> => {
      const another = await subject.open(masterKey);
      opened.push(another);
      return another;
    };

    beforeAll(async () => {
      subject = await subjectOf();
      store = await open();
      cipher = new ContentCipher(store);
    });
    afterAll(async () => {
      for (const each of opened) await each.close();
      await subject.dispose?.();
    });

    it('creates a 32-byte key on first obtain and returns the same bytes ever after, from any instance', async () => {
      const keyId = freshId();
      const key = await store.obtain(keyId, freshId('grp'));
      expect(Buffer.isBuffer(key)).toBe(true);
      expect(key).toHaveLength(32);
      expect((await store.obtain(keyId, freshId('grp'))).equals(key)).toBe(true);
      expect((await (await open()).obtain(keyId, 'any')).equals(key)).toBe(true);
      expect((await store.getMany([keyId])).get(keyId)!.equals(key)).toBe(true);
      expect((await store.obtain(freshId(), 'any')).equals(key)).toBe(false);
    });

    it('agrees on one key when the same key is obtained concurrently, by one instance or two', async () => {
      const keyId = freshId();
      const group = freshId('grp');
      const other = await open();
      const keys = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).obtain(keyId, group)),
      );
      for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
    });

    it('returns from getMany only the keys that still exist, each with its bytes', async () => {
      const group = freshId('grp');
      const [a, b, c] = [freshId(), freshId(), freshId()];
      const keyA = await store.obtain(a, group);
      await store.obtain(b, group);
      const keyC = await store.obtain(c, group);
      await store.destroy(b);

      const found = await store.getMany([a, b, c, freshId('unknown'), a]);
      expect([...found.keys()].sort()).toEqual([a, c].sort());
      expect(found.get(a)!.equals(keyA)).toBe(true);
      expect(found.get(c)!.equals(keyC)).toBe(true);
      expect((await store.getMany([])).size).toBe(0);
    });

    it("counts a group's destructions (one key, the whole group), from any instance, and nothing else", async () => {
      const [group, other] = [freshId('grp'), freshId('grp')];
      const [a, b, c] = [freshId(), freshId(), freshId()];
      await store.obtainMany([a, b, c].map((keyId) => ({ keyId, group })));
      await store.obtain(freshId(), other);
      expect(await store.destructions!(group)).toBe(0);

      await store.destroy(a);
      const afterOne = await store.destructions!(group);
      expect(afterOne).toBeGreaterThan(0);
      expect(await (await open()).destructions!(group)).toBe(afterOne);
      // Nothing destroyed: destroying a missing key, creating keys, another group's destruction.
      await store.destroy(a);
      await store.destroy(freshId('unknown'));
      await store.obtain(freshId(), group);
      await store.destroyGroup(freshId('unknown'));
      expect(await store.destructions!(group)).toBe(afterOne);
      expect(await store.destructions!(other)).toBe(0);

      await store.destroyGroup(group);
      expect(await store.destructions!(group)).toBeGreaterThan(afterOne);
      expect(await store.destructions!(freshId('grp'))).toBe(0);
    });

    it('looks up more ids than one query chunk holds', async () => {
      const group = freshId('grp');
      const live = Array.from({ length: 620 }, () => freshId());
      const keys = new Map<string, Buffer>();
      for (const keyId of live) keys.set(keyId, await store.obtain(keyId, group));
      const unknown = Array.from({ length: 620 }, () => freshId('unknown'));
      const asked = live.flatMap((keyId, i) => [keyId, unknown[i]!]);

      const found = await store.getMany(asked);
      expect(found.size).toBe(live.length);
      for (const keyId of live) expect(found.get(keyId)!.equals(keys.get(keyId)!)).toBe(true);
    });

    it('destroys one key for good; destroying it again or an unknown key is a no-op', async () => {
      const group = freshId('grp');
      const [doomed, kept] = [freshId(), freshId()];
      const old = await store.obtain(doomed, group);
      const keptKey = await store.obtain(kept, group);
      await store.destroy(doomed);
      expect((await store.getMany([doomed])).size).toBe(0);
      expect((await (await open()).getMany([doomed])).size).toBe(0);
      await expect(store.destroy(doomed)).resolves.toBeUndefined();
      await expect(store.destroy(freshId('unknown'))).resolves.toBeUndefined();
      expect((await store.getMany([kept])).get(kept)!.equals(keptKey)).toBe(true);
      // Obtaining the id again makes a new key: what the old one sealed stays unreadable.
      expect((await store.obtain(doomed, group)).equals(old)).toBe(false);
    });

    it('destroys every key of a group and counts them, leaving other groups alone', async () => {
      const [doomedGroup, keptGroup] = [freshId('grp'), freshId('grp')];
      const doomed = [freshId(), freshId(), freshId()];
      const kept = [freshId(), freshId()];
      for (const keyId of doomed) await store.obtain(keyId, doomedGroup);
      for (const keyId of kept) await store.obtain(keyId, keptGroup);

      expect(await store.destroyGroup(doomedGroup)).toBe(3);
      expect((await store.getMany(doomed)).size).toBe(0);
      expect([...(await store.getMany(kept)).keys()].sort()).toEqual([...kept].sort());
      expect(await store.destroyGroup(doomedGroup)).toBe(0);
      expect(await store.destroyGroup(freshId('unknown'))).toBe(0);
    });

    it('keeps a key in the group it was created in', async () => {
      const [first, second] = [freshId('grp'), freshId('grp')];
      const keyId = freshId();
      await store.obtain(keyId, first);
      await store.obtain(keyId, second);
      expect(await store.destroyGroup(second)).toBe(0);
      expect(await store.destroyGroup(first)).toBe(1);
    });

    it('obtains many keys in one call: the missing ones created in their groups, the existing ones as they are', async () => {
      const [group, otherGroup, firstGroup] = [freshId('grp'), freshId('grp'), freshId('grp')];
      const existing = freshId();
      const existingKey = await store.obtain(existing, firstGroup);
      const [a, b] = [freshId(), freshId()];

      const keys = await store.obtainMany([
        { keyId: a, group },
        { keyId: existing, group },
        { keyId: b, group: otherGroup },
        { keyId: a, group: otherGroup },
      ]);
      expect([...keys.keys()].sort()).toEqual([a, b, existing].sort());
      for (const key of keys.values()) expect(key).toHaveLength(32);
      expect(keys.get(existing)!.equals(existingKey)).toBe(true);
      expect(keys.get(a)!.equals(keys.get(b)!)).toBe(false);
      // The same bytes ever after, from any instance, and each filed under the first group asked for it.
      const again = await (
        await open()
      ).obtainMany([
        { keyId: a, group: freshId('grp') },
        { keyId: b, group },
      ]);
      expect(again.get(a)!.equals(keys.get(a)!)).toBe(true);
      expect(again.get(b)!.equals(keys.get(b)!)).toBe(true);
      expect((await store.obtain(b, group)).equals(keys.get(b)!)).toBe(true);
      expect(await store.destroyGroup(group)).toBe(1);
      expect([...(await store.getMany([a, b, existing])).keys()].sort()).toEqual([b, existing].sort());
      expect(await store.destroyGroup(otherGroup)).toBe(1);
      expect(await store.destroyGroup(firstGroup)).toBe(1);
      expect((await store.obtainMany([])).size).toBe(0);
    });

    it('agrees on the keys when overlapping sets are obtained concurrently, by one instance or two', async () => {
      const group = freshId('grp');
      const ids = Array.from({ length: 6 }, () => freshId());
      const other = await open();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 ? other : store).obtainMany(
            ids.slice(i % 3, (i % 3) + 4).map((keyId) => ({ keyId, group })),
          ),
        ),
      );
      const kept = await store.getMany(ids);
      expect(kept.size).toBe(ids.length);
      for (const keys of results)
        for (const [keyId, key] of keys) expect(key.equals(kept.get(keyId)!)).toBe(true);
    });

    it('seals several texts of one write with one key lookup, and a key it creates ahead seals later', async () => {
      const group = freshId('grp');
      const [message, title, ahead] = [freshId(), freshId(), freshId()];
      const { store: watched, calls } = counting(store);
      const sealer = await new ContentCipher(watched).sealer(group, [title, message, ahead]);
      const sealed = [
        sealer.seal(title, 'A title'),
        sealer.seal(message, 'Hello ✓'),
        sealer.seal(message, ''),
      ];
      expect(calls).toEqual({ obtain: 0, obtainMany: 1, getMany: 0 });
      expect(await cipher.openMany(sealed)).toEqual(['A title', 'Hello ✓', '']);
      expect(cipher.keyIdOf(sealed[1]!)).toBe(message);
      expect(() => sealer.seal(freshId(), 'x')).toThrow(/not obtained/);
      await expect(cipher.sealer(group, ['bad:id'])).rejects.toThrow(SealedContentError);

      // The key created ahead exists, filed under the group: a later write finds it, and erasure reaches it.
      const later = await cipher.seal(ahead, freshId('grp'), 'the answer');
      expect(await cipher.open(later)).toBe('the answer');
      expect(await store.destroyGroup(group)).toBe(3);
      expect(await cipher.openMany([...sealed, later])).toEqual([null, null, null, null]);
    });

    it("seals the writes of several people with one key lookup, each key filed in its person's group", async () => {
      const [first, second] = [freshId('grp'), freshId('grp')];
      const [a, b] = [freshId(), freshId()];
      const { store: watched, calls } = counting(store);
      const sealer = await new ContentCipher(watched).sealerOf([
        { keyId: a, group: first },
        { keyId: b, group: second },
      ]);
      const sealed = [sealer.seal(a, 'first person'), sealer.seal(b, 'second person')];
      expect(calls).toEqual({ obtain: 0, obtainMany: 1, getMany: 0 });
      await expect(cipher.sealerOf([{ keyId: 'bad:id', group: first }])).rejects.toThrow(SealedContentError);

      // Erasing one person's group reaches their words only.
      expect(await store.destroyGroup(first)).toBe(1);
      expect(await cipher.openMany(sealed)).toEqual([null, 'second person']);
      expect(await store.destroyGroup(second)).toBe(1);
    });

    it('seals and opens text of any script, the empty string and a megabyte', async () => {
      const keyId = freshId();
      const texts = [
        'Hello, world',
        'Grüße aus Köln — naïve café',
        '日本語のテキスト、中文，한국어',
        'مرحبا بالعالم שלום',
        '👩🏽‍💻 emoji 🧪 and \u0000 NUL and\nnewlines',
        '',
        'x'.repeat(1024 * 1024),
      ];
      for (const text of texts) {
        const sealed = await cipher.seal(keyId, 'grp', text);
        expect(sealed.startsWith(`sealed:v1:${keyId}:`)).toBe(true);
        if (text.length > 3) expect(sealed).not.toContain(text);
        expect(cipher.isSealed(sealed)).toBe(true);
        expect(cipher.keyIdOf(sealed)).toBe(keyId);
        expect(await cipher.open(sealed)).toBe(text);
      }
      const twice = [await cipher.seal(keyId, 'grp', 'same'), await cipher.seal(keyId, 'grp', 'same')];
      expect(twice[0]).not.toBe(twice[1]);
    });

    it('opens nothing once the key is destroyed, alone or as a group, also from another instance', async () => {
      const group = freshId('grp');
      const [one, two] = [freshId(), freshId()];
      const first = await cipher.seal(one, group, 'first secret');
      const second = await cipher.seal(two, group, 'second secret');
      const elsewhere = new ContentCipher(await open());
      expect(await elsewhere.open(first)).toBe('first secret');

      await store.destroy(one);
      expect(await cipher.open(first)).toBeNull();
      expect(await elsewhere.open(first)).toBeNull();
      expect(await cipher.open(second)).toBe('second secret');

      await store.destroyGroup(group);
      expect(await cipher.openMany([first, second])).toEqual([null, null]);
      expect(await elsewhere.open(second)).toBeNull();
    });

    it('opens a listing of 1,000 values with one key lookup, in order, nulls and destroyed keys as null', async () => {
      const group = freshId('grp');
      const keyIds = [freshId(), freshId(), freshId()];
      const texts = Array.from({ length: 1000 }, (_, i) => `message ${i} ✓`);
      const sealed: (string | null)[] = [];
      for (const [i, text] of texts.entries()) sealed.push(await cipher.seal(keyIds[i % 3]!, group, text));
      sealed[500] = null;
      await store.destroy(keyIds[2]!);

      const { store: watched, calls } = counting(store);
      const opened = await new ContentCipher(watched).openMany(sealed);
      expect(calls).toEqual({ obtain: 0, obtainMany: 0, getMany: 1 });
      expect(opened).toEqual(texts.map((text, i) => (i === 500 || i % 3 === 2 ? null : text)));

      expect(await new ContentCipher(watched).openMany([null, null])).toEqual([null, null]);
      expect(await new ContentCipher(watched).openMany([])).toEqual([]);
      expect(await cipher.open(null)).toBeNull();
      expect(calls.getMany).toBe(1);
    });

    it('refuses a tampered value: iv, tag, ciphertext, or a value moved to another key', async () => {
      const group = freshId('grp');
      const keyId = freshId();
      const other = freshId();
      const sealed = await cipher.seal(keyId, group, 'the original text');
      await cipher.seal(other, group, 'something else');
      const moved = sealed.replace(`:${keyId}:`, `:${other}:`);
      for (const tampered of [alter(sealed, 3), alter(sealed, 4), alter(sealed, 5), moved]) {
        expect(cipher.isSealed(tampered)).toBe(true);
        await expect(cipher.open(tampered)).rejects.toThrow(SealedContentError);
        await expect(cipher.open(tampered)).rejects.toThrow(/failed authentication/);
        await expect(cipher.openMany([sealed, tampered])).rejects.toThrow(SealedContentError);
      }
      expect(await cipher.open(sealed)).toBe('the original text');
    });

    it('refuses a part that is not the one canonical base64url of its bytes, before reading any key', async () => {
      const sealed = await cipher.seal(freshId(), 'grp', 'text');
      const [, , keyId, iv, tag, ciphertext] = sealed.split(':');
      // A tag is 16 bytes: 22 characters whose last one carries 4 unused bits, zero in the canonical encoding; the
      // next character of the alphabet decodes to the same bytes with one of them set.
      const bumped = (part: string) =>
        `${part.slice(0, -1)}${String.fromCharCode(part.charCodeAt(part.length - 1) + 1)}`;
      const { store: watched, calls } = counting(store);
      for (const value of [
        `sealed:v1:${keyId}:${iv}:${bumped(tag!)}:${ciphertext}`,
        // 4n + 1 characters: the last one would carry 6 bits of no byte.
        `sealed:v1:${keyId}:${iv}:${tag}:${ciphertext}${'A'.repeat((((1 - ciphertext!.length) % 4) + 4) % 4)}`,
      ]) {
        await expect(new ContentCipher(watched).open(value)).rejects.toThrow(/is not base64url/);
        expect(() => cipher.keyIdOf(value)).toThrow(SealedContentError);
      }
      expect(calls.getMany).toBe(0);
      expect(await cipher.open(sealed)).toBe('text');
    });

    it('refuses malformed values and key ids that cannot be written down', async () => {
      const sealed = await cipher.seal(freshId(), 'grp', 'text');
      const [, , keyId, iv, tag, ciphertext] = sealed.split(':');
      const malformed = [
        'plain text',
        '',
        `sealed:v2:${keyId}:${iv}:${tag}:${ciphertext}`,
        `sealed:v1:${keyId}:${iv}:${tag}`,
        `sealed:v1::${iv}:${tag}:${ciphertext}`,
        `sealed:v1:${keyId}:extra:${iv}:${tag}:${ciphertext}`,
        `sealed:v1:${keyId}:${iv}=:${tag}:${ciphertext}`,
        `sealed:v1:${keyId}:${iv!.slice(1)}:${tag}:${ciphertext}`,
        `sealed:v1:${keyId}:${iv}:${tag}:${ciphertext}+/`,
        `${sealed}\n`,
      ];
      for (const value of malformed) {
        expect(cipher.isSealed(value)).toBe(false);
        await expect(cipher.open(value)).rejects.toThrow(SealedContentError);
        await expect(cipher.openMany([sealed, value])).rejects.toThrow(/not a sealed value/);
        expect(() => cipher.keyIdOf(value)).toThrow(SealedContentError);
      }
      for (const value of [null, undefined, 42, {}, Buffer.from(sealed)])
        expect(cipher.isSealed(value)).toBe(false);

      for (const badKeyId of ['a:b', '', 'conv:1']) {
        await expect(cipher.seal(badKeyId, 'grp', 'text')).rejects.toThrow(SealedContentError);
      }
      expect((await store.getMany(['a:b', 'conv:1', ''])).size).toBe(0);
    });

    describe('with a master key', () => {
      const masterKey = randomBytes(32);

      it('stores keys wrapped, readable by any instance with the same master key', async () => {
        const wrapped = await open(masterKey);
        const keyId = freshId();
        const key = await wrapped.obtain(keyId, freshId('grp'));
        expect(key).toHaveLength(32);
        const stored = await subject.storedBytes(keyId);
        expect(stored).not.toBeNull();
        expect(stored!.includes(key)).toBe(false);
        expect(stored!.length).toBeGreaterThan(32);

        const sameMaster = await open(Buffer.from(masterKey));
        expect((await sameMaster.obtain(keyId, 'any')).equals(key)).toBe(true);
        expect((await sameMaster.getMany([keyId])).get(keyId)!.equals(key)).toBe(true);
        const sealed = await new ContentCipher(wrapped).seal(keyId, 'any', 'wrapped secret');
        expect(await new ContentCipher(sameMaster).open(sealed)).toBe('wrapped secret');
      });

      it('stores keys raw without one (development)', async () => {
        const keyId = freshId();
        const key = await store.obtain(keyId, freshId('grp'));
        expect((await subject.storedBytes(keyId))!.equals(key)).toBe(true);
      });

      it('cannot read a key wrapped under another master key, or with none', async () => {
        const keyId = freshId();
        await (await open(masterKey)).obtain(keyId, freshId('grp'));
        const sealed = await new ContentCipher(await open(masterKey)).seal(keyId, 'any', 'text');

        const otherMaster = await open(randomBytes(32));
        await expect(otherMaster.getMany([keyId])).rejects.toThrow(DataKeyUnreadableError);
        await expect(otherMaster.getMany([keyId])).rejects.toThrow(/different KEY_STORE_MASTER_KEY/);
        await expect(otherMaster.obtain(keyId, 'any')).rejects.toThrow(/different KEY_STORE_MASTER_KEY/);
        await expect(new ContentCipher(otherMaster).open(sealed)).rejects.toThrow(DataKeyUnreadableError);
        await expect(store.getMany([keyId])).rejects.toThrow(/KEY_STORE_MASTER_KEY is not set/);
      });

      it('cannot read a raw key once a master key is configured', async () => {
        const keyId = freshId();
        await store.obtain(keyId, freshId('grp'));
        await expect((await open(masterKey)).getMany([keyId])).rejects.toThrow(
          /stored unwrapped, and KEY_STORE_MASTER_KEY is set/,
        );
      });

      it('refuses a master key that is not 32 bytes', async () => {
        await expect(subject.open(randomBytes(16))).rejects.toThrow(/32 bytes/);
      });
    });
  });
}
