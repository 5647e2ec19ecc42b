// API key material: 256 random bits, shown once; only its SHA-256 is kept (high-entropy keys need no slow hash).
import { randomBytes } from 'node:crypto';
import { sha256 } from '#kernel';

export const API_KEY_PREFIX = 'ap_';

export const generateApiKey = (): string => `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

export const hashApiKey = (key: string): string => sha256(key);

/** Enough of the key to tell keys apart in a list, far too little to guess the rest. */
export const displayPrefix = (key: string): string => key.slice(0, API_KEY_PREFIX.length + 6);
