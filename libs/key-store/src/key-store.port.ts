// The key store port: data keys for content a user can erase (messages, attachments, summaries). Content is sealed
// with its key before it reaches an event or a read model; destroying the key erases the content everywhere it was
// copied (read models, rebuilds, backups of the log) while the log keeps who did what and when (crypto-shredding).
// Two adapters (SQLite embedded, a MongoDB collection in production) pass one contract suite.

export interface KeyStore {
  /** The 32-byte data key `keyId`, created (filed under `group`) when it does not exist yet. */
  obtain(keyId: string, group: string): Promise<Buffer>;
  /** The data keys that still exist among `keyIds` (destroyed or unknown ones are absent). */
  getMany(keyIds: readonly string[]): Promise<ReadonlyMap<string, Buffer>>;
  /** Destroys one key; its content can never be read again. Destroying a missing key is a no-op. */
  destroy(keyId: string): Promise<void>;
  /** Destroys every key filed under `group`; returns how many were destroyed. */
  destroyGroup(group: string): Promise<number>;
  close(): Promise<void>;
}

export const KEY_STORE = Symbol('KEY_STORE');
