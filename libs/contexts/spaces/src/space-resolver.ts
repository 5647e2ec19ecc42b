// What the policy reads about a Space, loaded for the gate (#access enforcement): the Space a message names with its
// members, and the asks of seeing it (404 when denied), changing it or what is in it, its members and its prompts.
// A command or query declares them with `@Requires(SpaceResolver, …)`; the gate asks; its handler then reads the
// Space, asking nothing.
import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '#kernel';
import { ask, either, type Ask, type PrincipalOrCaller } from '#access';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ReadStore } from '#read-store';
import { promptAsks } from './prompts/prompt-access.js';
import { spaceCreationSetting } from './queries/get-space-creation-roles/get-space-creation-roles.query.js';
import { spaceAsOf } from './space-as-of.js';
import type { SpaceRole } from './space.events.js';
import { membersAsk, membershipChangeAsks, spaceById } from './space-membership.js';
import { SpaceGrants, spaceToChange, spaceToSee } from './space-visibility.js';
import { SPACES, type SpaceView } from './spaces.read-model.js';

/** Loads what the gate asks about a Space a message names. */
@Injectable()
export class SpaceResolver {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly grants: SpaceGrants,
  ) {}

  /** `space.create`, as the instance setting of who may create shared Spaces allows. */
  async create(): Promise<Ask> {
    return ask(
      'space.create',
      await spaceCreationSetting(this.readStore),
      'creating shared Spaces is restricted to the roles an admin allowed (GET /settings/space-creation)',
    );
  }

  /** `space.read`: 404 whether or not the Space exists. */
  async see(spaceId: string, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    return (await spaceToSee(this.readStore, this.grants, spaceId, who)).asks;
  }

  /**
   * Seeing the Space as it was at `asOf` (404 when it did not exist then or was deleted by then): `space.change` on
   * the Space as it was then (its owners and admins then keep its past, deleted since or not), or else `space.read`
   * on the Space now, while it lives.
   */
  async seeAsOf(spaceId: string, asOf: Date, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    const then = await spaceAsOf(this.eventStore, spaceId, asOf);
    if (!then) throw new NotFoundError('Space', spaceId);
    const changedThen = ask('space.change', then, () => new NotFoundError('Space', spaceId));
    const live = await this.readStore.reader<SpaceView>(SPACES).get(spaceId);
    return live ? [either(changedThen, ...(await this.see(spaceId, who)))] : [changedThen];
  }

  /** `space.read` (404), then `space.change` or `space.content.change` (403). */
  async change(
    spaceId: string,
    who: PrincipalOrCaller,
    action: 'space.change' | 'space.content.change' = 'space.change',
  ): Promise<readonly Ask[]> {
    return (await spaceToChange(this.readStore, this.grants, spaceId, who, action)).asks;
  }

  /** As change, for a Space still in the read model: one already gone is the decider's (a no-op, or 404). */
  async changeIfLive(spaceId: string, who: PrincipalOrCaller): Promise<readonly Ask[]> {
    return (await this.readStore.reader<SpaceView>(SPACES).get(spaceId)) ? this.change(spaceId, who) : [];
  }

  /** `space.members.read` (404 when denied). */
  async members(spaceId: string): Promise<Ask> {
    return membersAsk(await spaceById(this.readStore, spaceId));
  }

  /** `space.members.read` (404), then `space.member.change` of `userId` to `newRole` (null: removal). */
  memberChange(spaceId: string, userId: string, newRole: SpaceRole | null): Promise<readonly Ask[]> {
    return membershipChangeAsks(this.readStore, spaceId, userId, newRole);
  }

  /** `space.members.read` (404), then `space.member.candidates` (403): finding people to add. */
  async candidates(spaceId: string): Promise<readonly Ask[]> {
    const space = await spaceById(this.readStore, spaceId);
    return [
      membersAsk(space),
      ask('space.member.candidates', space, (reason) =>
        reason === 'personal_space_unshareable'
          ? 'a personal Space has no other members'
          : `finding people to add to Space '${spaceId}' needs the editor role in it`,
      ),
    ];
  }

  /** `prompt.read` (404), and `prompt.change` (403) for a change. */
  prompts(spaceId: string, action: 'prompt.read' | 'prompt.change'): Promise<readonly Ask[]> {
    return promptAsks(this.readStore, spaceId, action);
  }
}
