// The key store port: data keys for content a user can erase (messages, attachments, summaries). Content is sealed
// with its key before it reaches an event or a read model; destroying the key erases the content everywhere it was
// copied (read models, rebuilds, backups of the log) while the log keeps who did what and when (crypto-shredding).
// Two adapters (SQLite embedded, a MongoDB collection in production) pass one contract suite.

/** A data key to obtain, and the group it is filed under if it has to be created. */
export interface WantedKey {
  readonly keyId: string;
  readonly group: string;
}

export interface KeyStore {
  /** The 32-byte data key `keyId`, created (filed under `group`) when it does not exist yet. */
  obtain(keyId: string, group: string): Promise<Buffer>;
  /**
   * The data keys `wanted` names, each created (filed under its group) when it does not exist yet, all in one write:
   * a turn's keys cost one durable commit, not one each. Keys that exist already cost a read and keep their group.
   */
  obtainMany(wanted: readonly WantedKey[]): Promise<ReadonlyMap<string, Buffer>>;
  /** The data keys that still exist among `keyIds` (destroyed or unknown ones are absent). */
  getMany(keyIds: readonly string[]): Promise<ReadonlyMap<string, Buffer>>;
  /**
   * How many destructions of keys filed under `group` this store has seen (destroying one of its keys counts one,
   * destroying the group counts one): it only grows. A cache of values opened with a group's keys reads it before
   * opening them; reading it unchanged later, it knows that none of their keys was destroyed since (in any process),
   * without looking each key up. Optional: a store without it gives a cache nothing to trust, so nothing is kept.
   */
  destructions?(group: string): Promise<number>;
  /** Destroys one key; its content can never be read again. Destroying a missing key is a no-op. */
  destroy(keyId: string): Promise<void>;
  /** Destroys every key filed under `group`; returns how many were destroyed. */
  destroyGroup(group: string): Promise<number>;
  close(): Promise<void>;
}

export const KEY_STORE = Symbol('KEY_STORE');
