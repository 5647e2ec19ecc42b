// Passwords: argon2id (@node-rs/argon2, OWASP's parameters: 19 MiB, 2 passes). Only the PHC hash is kept.
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { ValidationError } from '#kernel';

/** Algorithm.Argon2id (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export const hashPassword = async (password: string): Promise<string> => {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
    throw new ValidationError(
      'invalid_password',
      `a password has ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
      'password',
    );
  return hash(password, OPTIONS);
};

/** Whether the password matches; false for a malformed hash. */
export const verifyPassword = async (passwordHash: string, password: string): Promise<boolean> =>
  verify(passwordHash, password).catch(() => false);
