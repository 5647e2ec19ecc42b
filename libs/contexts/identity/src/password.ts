// Passwords: argon2id (@node-rs/argon2, OWASP's parameters: 19 MiB, 2 passes). Only the PHC hash is kept. The native
// addon is loaded on the first password handled (sign-in, an accepted invitation, a reset), not at start: most api
// processes never see a password, and start-up and idle memory are measured.
import type { Algorithm } from '@node-rs/argon2';
import { ValidationError } from '#kernel';

/** Algorithm.Argon2id (a const enum, which isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

let argon2: Promise<typeof import('@node-rs/argon2')> | null = null;
const loadArgon2 = () => (argon2 ??= import('@node-rs/argon2'));

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export const hashPassword = async (password: string): Promise<string> => {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
    throw new ValidationError(
      'invalid_password',
      `a password has ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
      'password',
    );
  return (await loadArgon2()).hash(password, OPTIONS);
};

/** Whether the password matches; false for a malformed hash. */
export const verifyPassword = async (passwordHash: string, password: string): Promise<boolean> =>
  (await loadArgon2()).verify(passwordHash, password).catch(() => false);
