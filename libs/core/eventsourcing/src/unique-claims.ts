// Uniqueness across aggregates without a shared table: a claim stream per normalised value (`unique-<kind>-<hash>`)
// records who holds it. A claim whose holder no longer uses the value (deleted, renamed, or never created after a
// crash) is stale and can be taken over, so a crash between the claim and the entity's own append blocks nothing.
import { ConflictError, sha256, type DomainEvent } from '#kernel';
import type { EventStore } from '#event-store';
import { handleCommand, type CommandContext } from './command-handling.js';
import type { Decider } from './decider.js';

export type ClaimEvent =
  | DomainEvent<
      'UniqueValueClaimed',
      { readonly kind: string; readonly value: string; readonly ownerId: string }
    >
  | DomainEvent<
      'UniqueValueReleased',
      { readonly kind: string; readonly value: string; readonly ownerId: string }
    >;

interface ClaimState {
  readonly ownerId: string | null;
}

type ClaimCommand =
  | {
      readonly type: 'Claim';
      readonly kind: string;
      readonly value: string;
      readonly ownerId: string;
      readonly staleHolder: string | null;
    }
  | { readonly type: 'Release'; readonly kind: string; readonly value: string; readonly ownerId: string };

export const claimDecider: Decider<ClaimState, ClaimCommand, ClaimEvent> = {
  initialState: () => ({ ownerId: null }),
  evolve: (_state, event) => ({ ownerId: event.type === 'UniqueValueClaimed' ? event.data.ownerId : null }),
  decide: (command, state) => {
    const data = { kind: command.kind, value: command.value, ownerId: command.ownerId };
    if (command.type === 'Release')
      return state.ownerId === command.ownerId ? [{ type: 'UniqueValueReleased', data }] : [];
    if (state.ownerId === command.ownerId) return [];
    // Only the holder the caller checked and found stale may be replaced; anyone who claimed since then wins.
    if (state.ownerId !== null && state.ownerId !== command.staleHolder)
      throw new ConflictError(
        `${command.kind}_taken`,
        `${command.kind} '${command.value}' is already in use`,
        command.kind,
      );
    return [{ type: 'UniqueValueClaimed', data }];
  },
};

export const claimStreamId = (kind: string, value: string): string =>
  `unique-${kind}-${sha256(value.trim().toLowerCase()).slice(0, 32)}`;

/**
 * Claims `value` for `ownerId`. `holderUsesValue` tells whether the current holder still uses it (read from the
 * holder's own stream by the caller), deciding whether an existing claim is live or stale.
 */
export async function claimUnique(
  store: EventStore,
  kind: string,
  value: string,
  ownerId: string,
  holderUsesValue: (holderId: string) => Promise<boolean>,
  context: CommandContext,
): Promise<void> {
  const streamId = claimStreamId(kind, value);
  const current = await store.readStream(streamId, { direction: 'backwards', maxCount: 1 });
  const last = current[0]?.data as { ownerId?: string } | undefined;
  const holder = current[0]?.type === 'UniqueValueClaimed' ? last?.ownerId : undefined;
  const staleHolder =
    holder !== undefined && holder !== ownerId && !(await holderUsesValue(holder)) ? holder : null;
  await handleCommand(
    store,
    streamId,
    claimDecider,
    { type: 'Claim', kind, value, ownerId, staleHolder },
    context,
  );
}

export async function releaseUnique(
  store: EventStore,
  kind: string,
  value: string,
  ownerId: string,
  context: CommandContext,
): Promise<void> {
  await handleCommand(
    store,
    claimStreamId(kind, value),
    claimDecider,
    { type: 'Release', kind, value, ownerId },
    context,
  );
}
