// Process manager: a Space created before members existed (no `SpaceMemberAdded` with its creation) gets its creator
// as owner, so that it is owned like every Space (by its creator's user, with every key and session of theirs) and
// no longer by the one key that created it. The creator is the creation's actor: a user signed in, or an API key's
// owner (this process keeps the owner of every key issued, from `ApiKeyIssued`, in its own collection). It reads the
// log from its start, so every such Space is adopted on the first start after an upgrade, without a step; the
// AdoptSpaceCreator decider does nothing for a Space that has members (every Space created since, and one whose
// first membership change already recorded its creator), a personal or a deleted one, so a replay appends nothing.
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { causedBy, defineProcess, type EventHandlers } from '#eventsourcing';
import { type ApiKeyEvent } from '#identity';
import { platformPrincipal } from '#access';
import { AdoptSpaceCreator } from './commands/adopt-space-creator/adopt-space-creator.command.js';
import type { SpaceEvent } from './space.events.js';

type LegacySpaceOwnerRead =
  Extract<ApiKeyEvent, { type: 'ApiKeyIssued' }> | Extract<SpaceEvent, { type: 'SpaceCreated' }>;

/** The owner of each API key issued: `{ id: apiKeyId, ownerUserId }`. */
export const LEGACY_SPACE_OWNER_KEYS = 'legacy_space_owner_keys';

const PLATFORM = platformPrincipal('legacy-space-owner-process');

@Injectable()
export class LegacySpaceOwnerProcess extends defineProcess<LegacySpaceOwnerRead>({
  name: 'legacy-space-owner-process',
  version: 1,
  collections: [{ name: LEGACY_SPACE_OWNER_KEYS }],
}) {
  constructor(private readonly bus: CommandBus) {
    super();
  }

  readonly on: EventHandlers<LegacySpaceOwnerRead> = {
    ApiKeyIssued: ({ data }) => [
      {
        kind: 'upsert',
        collection: LEGACY_SPACE_OWNER_KEYS,
        doc: { id: data.apiKeyId, ownerUserId: data.ownerUserId },
      },
    ],
    SpaceCreated: async (event, context) => {
      if (event.data.personalOf) return [];
      const { actor } = event.metadata;
      const creatorUserId =
        actor.kind === 'user'
          ? actor.id
          : actor.kind === 'apiKey'
            ? ((await context.get<{ id: string; ownerUserId: string }>(LEGACY_SPACE_OWNER_KEYS, actor.id))
                ?.ownerUserId ?? null)
            : null;
      if (creatorUserId === null) return [];
      await this.bus.execute(
        new AdoptSpaceCreator(
          event.data.spaceId,
          creatorUserId,
          causedBy(event, 'legacy-space-owner'),
          PLATFORM,
        ),
      );
      return [];
    },
  };
}
