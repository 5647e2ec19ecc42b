// This machine's floor for storing a Responses answer erasably and durably, as the gateway's stored /responses must:
// per response a fresh 32-byte data key inserted into a key database, its input and its `response` object sealed
// with that key (AES-256-GCM, a fresh IV each), and one row of those sealed texts appended to an event log; both
// databases in WAL mode with synchronous FULL, each committed once per batch of responses (as the api's key store and
// event store commit what one turn of its event loop wrote). Nothing else: no envelope, no aggregate, no read model,
// no projection, no HTTP. The key is stored raw, as the benchmark's api stores it (no KEY_STORE_MASTER_KEY). What it
// costs in CPU (every thread of this process, user and system: the fsyncs' kernel time included) is the least any
// design that keeps a stored answer erasable and durable once acknowledged adds to an unstored one.
import { createCipheriv, createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { makeTempDir, median } from './util.js';

const seal = (keyId: string, key: KeyObject, plaintext: string): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${keyId}:${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ciphertext.toString('base64url')}`;
};

const durable = (path: string): DatabaseSync => {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;');
  return db;
};

/** CPU µs per response of `responses` stored in batches of `batch` (one run). */
function oneRun(input: string, response: string, responses: number, batch: number): number {
  const dir = makeTempDir('stored-floor');
  const keys = durable(join(dir.path, 'keys.db'));
  const log = durable(join(dir.path, 'events.db'));
  try {
    keys.exec(
      'CREATE TABLE data_keys (key_id TEXT PRIMARY KEY, key BLOB NOT NULL, created_at INTEGER NOT NULL)',
    );
    log.exec(
      'CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, ' +
        'stream_id TEXT NOT NULL, revision INTEGER NOT NULL, data TEXT NOT NULL, UNIQUE (stream_id, revision))',
    );
    const insertKey = keys.prepare('INSERT INTO data_keys (key_id, key, created_at) VALUES (?, ?, ?)');
    const append = log.prepare('INSERT INTO events (id, stream_id, revision, data) VALUES (?, ?, 0, ?)');
    const started = process.cpuUsage();
    for (let done = 0; done < responses; done += batch) {
      const ids = Array.from({ length: batch }, () => `resp_${randomBytes(16).toString('hex')}`);
      const made = ids.map(() => randomBytes(32));
      keys.exec('BEGIN');
      for (const [i, id] of ids.entries()) insertKey.run(id, made[i]!, Date.now());
      keys.exec('COMMIT');
      log.exec('BEGIN');
      for (const [i, id] of ids.entries()) {
        const key = createSecretKey(made[i]!);
        const data = JSON.stringify({
          responseId: id,
          input: seal(id, key, input),
          response: seal(id, key, response),
        });
        append.run(randomUUID(), `response-${id}`, data);
      }
      log.exec('COMMIT');
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / responses;
  } finally {
    keys.close();
    log.close();
    dir.remove();
  }
}

/**
 * The floor's CPU µs per stored response: the median of `runs` runs of `responses` responses each, in batches of
 * `batch` (32: the benchmark's concurrency, the most a turn of the api's event loop can have answered).
 */
export function storedResponseFloorUs(
  input: string,
  response: string,
  { responses = 2048, batch = 32, runs = 3 } = {},
): number {
  oneRun(input, response, batch * 4, batch); // warm-up: the crypto and SQLite paths compiled
  return median(Array.from({ length: runs }, () => oneRun(input, response, responses, batch)));
}
