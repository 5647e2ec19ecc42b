// Seals erasable content (message text, summaries) with its data key before it reaches an event or a read model,
// and opens it again while the key lives. Keys are looked up on every call and never cached: a destroyed key must
// make the content unreadable at once, in this process and every other.
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { pooledRandomBytes } from '#kernel';
import { Inject, Injectable } from '@nestjs/common';
import { KEY_STORE, type KeyStore, type WantedKey } from './key-store.port.js';

const PREFIX = 'sealed:v1:';
const BYTES_MAGIC = Buffer.from('SEALEDB1', 'ascii');
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** `sealed:v1:<keyId>:<iv>:<tag>:<ciphertext>`, the binary parts base64url without padding. */
const SEALED = /^sealed:v1:([^:]+):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22}):([A-Za-z0-9_-]*)$/;

/** A sealed value that is malformed, or that fails authentication (tampered, or moved to another key). */
export class SealedContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

interface Sealed {
  readonly keyId: string;
  readonly iv: Buffer;
  readonly tag: Buffer;
  readonly ciphertext: Buffer;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Strict: Node's decoder skips what it does not know and ignores bits past the last byte, so only the one canonical
 * encoding counts. SEALED admits only base64url's alphabet; what is left is its length (4n + 1 characters is no
 * encoding) and the unused low bits of the last character (4 of them after 4n + 2 characters, 2 after 4n + 3), which
 * must be zero. The same values as re-encoding and comparing, without encoding every part again (a listing opens
 * hundreds).
 */
function decode(part: string, what: string): Buffer {
  const rest = part.length % 4;
  const last = rest === 0 ? 0 : BASE64URL.indexOf(part.charAt(part.length - 1));
  if (rest === 1 || last < 0 || (rest === 2 && (last & 0x0f) !== 0) || (rest === 3 && (last & 0x03) !== 0))
    throw new SealedContentError(`The sealed value's ${what} is not base64url`);
  return Buffer.from(part, 'base64url');
}

function parse(sealed: string): Sealed {
  const match = typeof sealed === 'string' ? SEALED.exec(sealed) : null;
  if (!match) {
    const shown = typeof sealed === 'string' ? JSON.stringify(sealed.slice(0, 40)) : typeof sealed;
    throw new SealedContentError(
      `${shown} is not a sealed value (sealed:v1:<keyId>:<iv>:<tag>:<ciphertext>)`,
    );
  }
  const [, keyId, iv, tag, ciphertext] = match as unknown as [string, string, string, string, string];
  return {
    keyId,
    iv: decode(iv, 'iv'),
    tag: decode(tag, 'tag'),
    ciphertext: decode(ciphertext, 'ciphertext'),
  };
}

function decrypt(sealed: Sealed, key: KeyObject): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(sealed.keyId, 'utf8'));
  decipher.setAuthTag(sealed.tag);
  try {
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedContentError(
      `A value sealed under data key '${sealed.keyId}' failed authentication: it was altered, or not sealed with that key`,
    );
  }
}

/**
 * The keys as KeyObjects, each made once: node:crypto turns a raw key into one on every cipher it creates, which
 * costs about twice the AES-GCM work of a short text (≈15 µs against ≈5 µs per message opened).
 */
function secretKeys(keys: ReadonlyMap<string, Buffer>): Map<string, KeyObject> {
  return new Map([...keys].map(([keyId, key]) => [keyId, createSecretKey(key)]));
}

function checkKeyId(keyId: string): void {
  if (typeof keyId !== 'string' || keyId === '' || keyId.includes(':')) {
    throw new SealedContentError(`${JSON.stringify(keyId)} cannot be a data key id (non-empty, no ':')`);
  }
}

function encrypt(keyId: string, key: KeyObject, plaintext: string): string {
  const iv = pooledRandomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${PREFIX}${keyId}:${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ciphertext.toString('base64url')}`;
}

/** Seals texts under data keys obtained beforehand (ContentCipher.sealer). */
export interface Sealer {
  seal(keyId: string, plaintext: string): string;
}

@Injectable()
export class ContentCipher {
  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {}

  /** Seals `plaintext` under the data key `keyId` (created in `group` on first use). */
  async seal(keyId: string, group: string, plaintext: string): Promise<string> {
    checkKeyId(keyId);
    if (typeof plaintext !== 'string') throw new SealedContentError('Only a string can be sealed');
    return encrypt(keyId, createSecretKey(await this.keys.obtain(keyId, group)), plaintext);
  }

  /**
   * A sealer for the data keys `keyIds`, obtained (created in `group` when missing) in one key-store call: a write
   * that seals several texts, or creates a key it will need next, pays one durable commit. Only for the write at
   * hand: the keys it holds are not kept beyond it.
   */
  sealer(group: string, keyIds: readonly string[]): Promise<Sealer> {
    return this.sealerOf(keyIds.map((keyId) => ({ keyId, group })));
  }

  /** A sealer as `sealer` gives, for keys of several groups: a batch of writes of several people pays one commit. */
  async sealerOf(wanted: readonly WantedKey[]): Promise<Sealer> {
    for (const { keyId } of wanted) checkKeyId(keyId);
    const keys = secretKeys(await this.keys.obtainMany(wanted));
    return {
      seal: (keyId, plaintext) => {
        const key = keys.get(keyId);
        if (!key) throw new Error(`The data key '${keyId}' was not obtained for this write`);
        if (typeof plaintext !== 'string') throw new SealedContentError('Only a string can be sealed');
        return encrypt(keyId, key, plaintext);
      },
    };
  }

  /** The plaintext, or null when its key was destroyed (or `sealed` is null); throws on a malformed or altered value. */
  async open(sealed: string | null): Promise<string | null> {
    const [plaintext] = await this.openMany([sealed]);
    return plaintext ?? null;
  }

  /** Opens many values with one key lookup for all their keys, so a long listing costs one query, not one per value. */
  async openMany(sealed: readonly (string | null)[]): Promise<(string | null)[]> {
    // Every value is parsed before any key is read: a malformed one fails the call without touching the store.
    const parsed = sealed.map((value) => (value === null ? null : parse(value)));
    const keyIds = [...new Set(parsed.flatMap((value) => (value ? [value.keyId] : [])))];
    if (keyIds.length === 0) return parsed.map(() => null);
    const keys = secretKeys(await this.keys.getMany(keyIds));
    return parsed.map((value) => {
      const key = value && keys.get(value.keyId);
      return value && key ? decrypt(value, key) : null;
    });
  }

  /**
   * The count of destructions of `group`'s keys (KeyStore.destructions), or null when the store cannot say: what a
   * cache of values opened with the group's keys reads before opening them and checks unchanged before serving them.
   */
  async destructions(group: string): Promise<number | null> {
    return this.keys.destructions ? this.keys.destructions(group) : null;
  }

  /**
   * Seals bytes (a file) under the data key `keyId`: `SEALEDB1`, the key id's length (one byte) and the key id, then
   * iv, tag and ciphertext. Each call draws a fresh iv, so the stored bytes (and a content address of them) say
   * nothing of the plaintext, and destroying the key shreds every copy.
   */
  async sealBytes(keyId: string, group: string, plaintext: Uint8Array): Promise<Buffer> {
    const id = Buffer.from(keyId, 'utf8');
    if (keyId === '' || keyId.includes(':') || id.byteLength > 255)
      throw new SealedContentError(`${JSON.stringify(keyId)} cannot be a data key id (1-255 bytes, no ':')`);
    const key = await this.keys.obtain(keyId, group);
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(id);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([
      BYTES_MAGIC,
      Buffer.from([id.byteLength]),
      id,
      iv,
      cipher.getAuthTag(),
      ciphertext,
    ]);
  }

  /** Whether `bytes` were sealed by `sealBytes` (they may still fail to open). */
  isSealedBytes(bytes: Uint8Array): boolean {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .subarray(0, BYTES_MAGIC.byteLength)
      .equals(BYTES_MAGIC);
  }

  /** The plaintext bytes, or null when their key was destroyed; throws on malformed or altered bytes. */
  async openBytes(sealed: Uint8Array): Promise<Buffer | null> {
    const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    const idLength = bytes[BYTES_MAGIC.byteLength];
    const start = BYTES_MAGIC.byteLength + 1;
    if (
      !this.isSealedBytes(bytes) ||
      idLength === undefined ||
      bytes.byteLength < start + idLength + IV_BYTES + TAG_BYTES
    )
      throw new SealedContentError('The bytes are not sealed (SEALEDB1)');
    const id = bytes.subarray(start, start + idLength);
    const keyId = id.toString('utf8');
    const key = (await this.keys.getMany([keyId])).get(keyId);
    if (!key) return null;
    const iv = bytes.subarray(start + idLength, start + idLength + IV_BYTES);
    const tag = bytes.subarray(start + idLength + IV_BYTES, start + idLength + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(id);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([
        decipher.update(bytes.subarray(start + idLength + IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new SealedContentError(`Bytes sealed under data key '${keyId}' failed authentication`);
    }
  }

  /** Whether `value` has the shape of a sealed value (it may still fail to open). */
  isSealed(value: unknown): value is string {
    return typeof value === 'string' && SEALED.test(value);
  }

  /** The data key a sealed value needs; throws when `sealed` is malformed. */
  keyIdOf(sealed: string): string {
    return parse(sealed).keyId;
  }
}
