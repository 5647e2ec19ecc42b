// What a key may give the keys it mints (Developer Settings by a key): never more than it has itself. A minted limit
// counts over the same or a longer window and allows at most as much of each measure the minting key limits.
import { PlatformError } from '#kernel';
import { UsageLimit } from '#access';

const WINDOW_LENGTH: Readonly<Record<UsageLimit['window'], number>> = { day: 1, week: 7, month: 31 };

const describe = (limit: UsageLimit): string =>
  [
    ...(limit.tokens === null ? [] : [`${limit.tokens} tokens`]),
    ...(limit.costUsd === null ? [] : [`${limit.costUsd} USD`]),
  ].join(' and ') + ` a ${limit.window}`;

/** 403 `usage_limit_above_own` unless `minted` stays within `own` (null: the minting key has no limit). */
export function assertWithinOwnLimit(minted: UsageLimit, own: UsageLimit | null): void {
  if (!own) return;
  // A shorter window would allow more per the minting key's window (100 a day is 3,100 a month).
  const within =
    WINDOW_LENGTH[minted.window] >= WINDOW_LENGTH[own.window] &&
    (['tokens', 'costUsd'] as const).every(
      (measure) => own[measure] === null || (minted[measure] !== null && minted[measure] <= own[measure]),
    );
  if (!within)
    throw new PlatformError(
      'forbidden',
      'usage_limit_above_own',
      `a key mints keys within its own usage limit (${describe(own)}): ask for at most that, over a ${own.window} or longer`,
      'usageLimit',
    );
}
