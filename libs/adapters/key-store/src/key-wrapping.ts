// How a data key lies in storage, for every adapter: wrapped under the configured master key with AES-256-GCM, or
// raw when none is configured (development). Keeping this in one place means a store written by one adapter's
// rules can never be read by the other's, and a key cannot be moved to another key id (the key id is the AAD).
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { pooledRandomBytes } from '#kernel';

export const DATA_KEY_BYTES = 32;
const MASTER_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A format byte, so a raw 32-byte key and a wrapped one can never be taken for each other. */
const WRAPPED_V1 = 0x01;
const WRAPPED_BYTES = 1 + IV_BYTES + TAG_BYTES + DATA_KEY_BYTES;

/** A stored data key that this process cannot read: another master key, none where one is needed, or damage. */
export class DataKeyUnreadableError extends Error {
  constructor(keyId: string, reason: string) {
    super(`Data key '${keyId}' cannot be read: ${reason}`);
    this.name = new.target.name;
  }
}

export class KeyWrapping {
  /** A KeyObject made once: node:crypto would otherwise build one from raw bytes for every key (un)wrapped. */
  private readonly masterKey: KeyObject | undefined;

  constructor(masterKey: Buffer | undefined) {
    if (masterKey !== undefined && masterKey.length !== MASTER_KEY_BYTES) {
      throw new RangeError(
        `The key store master key must be ${MASTER_KEY_BYTES} bytes, got ${masterKey.length}`,
      );
    }
    // A copy, so a caller that zeroes or reuses its buffer does not change how keys are unwrapped.
    this.masterKey = masterKey ? createSecretKey(Buffer.from(masterKey)) : undefined;
  }

  /** What to store for the data key `key` of `keyId`. */
  wrap(keyId: string, key: Buffer): Buffer {
    if (!this.masterKey) return key;
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(keyId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(key), cipher.final()]);
    return Buffer.concat([Buffer.from([WRAPPED_V1]), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** The data key of `keyId` from what was stored; throws a DataKeyUnreadableError when it cannot be. */
  unwrap(keyId: string, stored: Uint8Array): Buffer {
    const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
    const wrapped = bytes.length === WRAPPED_BYTES && bytes[0] === WRAPPED_V1;
    if (!this.masterKey) {
      if (wrapped) {
        throw new DataKeyUnreadableError(
          keyId,
          'it is wrapped under a master key, and KEY_STORE_MASTER_KEY is not set',
        );
      }
      if (bytes.length !== DATA_KEY_BYTES) {
        throw new DataKeyUnreadableError(
          keyId,
          `the stored key is ${bytes.length} bytes, not ${DATA_KEY_BYTES}`,
        );
      }
      return Buffer.from(bytes);
    }
    if (!wrapped) {
      // Accepting it would let anyone with write access to the store plant keys the master key never protected.
      throw new DataKeyUnreadableError(keyId, 'it is stored unwrapped, and KEY_STORE_MASTER_KEY is set');
    }
    const iv = bytes.subarray(1, 1 + IV_BYTES);
    const tag = bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(keyId, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new DataKeyUnreadableError(
        keyId,
        'it was wrapped under a different KEY_STORE_MASTER_KEY (or the stored key is damaged)',
      );
    }
  }
}
