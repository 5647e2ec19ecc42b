// Random bytes for the hot paths (ids, the IVs of sealed content, data keys), drawn from a pool the CSPRNG refills
// 4 KB at a time: each call to it (randomBytes, getRandomValues) cost 1.4 µs in a loop on the bench machine and
// several times that between requests, and a stored answer drew five times. Each byte is handed out once; the
// copies handed out are the caller's, each in memory of its own (not a slice of Node's shared pool of small buffers,
// where a data key would sit beside whatever else was allocated there).
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let next = POOL_BYTES;

/** `size` fresh random bytes (at most 256), as a Buffer of their own. */
export function pooledRandomBytes(size: number): Buffer {
  if (!Number.isInteger(size) || size < 0 || size > 256)
    throw new RangeError(`pooledRandomBytes(${size}): 0 to 256`);
  return randomInto(Buffer.allocUnsafeSlow(size));
}

/**
 * Fills `target` (at most 256 bytes) with fresh random bytes and returns it: for a caller that reads them at once
 * into something else (an id's random bits), with no memory of their own to allocate on every call.
 */
export function randomInto<T extends Uint8Array>(target: T): T {
  const size = target.byteLength;
  if (size > 256) throw new RangeError(`randomInto: ${size} bytes, at most 256`);
  if (next + size > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  target.set(pool.subarray(next, next + size));
  // What was handed out is not left behind in the pool.
  pool.fill(0, next, next + size);
  next += size;
  return target;
}
