// The people an owner or editor may add to a Space, found by name or e-mail (the member picker): active users whose
// name or e-mail contains the query (case-insensitive), who are not members yet; id, name and e-mail only, at most
// `limit`. Only for whoever may add members (`space.member.candidates`): 404 for a Space the caller does not see,
// 403 for a member who may not add. Nobody lists the whole user base through it: unless the people directory is
// open (an instance setting) or the caller may list every user (admins), the candidates are the people the caller
// already shares a Space with. The users read model has no text index: the scan reads it in pages and stops at
// `limit` matches.
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { USERS, type UserView } from '#identity';
import { permits, Requires, userIdOf, type Principal } from '#access';
import { findAll, READ_STORE, type ReadStore } from '#read-store';
import { spaceById } from '../../space-membership.js';
import { SpaceResolver } from '../../space-resolver.js';
import { SPACE_MEMBERS, type SpaceMemberView } from '../../spaces.read-model.js';
import { peopleDirectorySetting } from '../get-people-directory/get-people-directory.query.js';

export interface MemberCandidate {
  readonly id: string;
  readonly name: string;
  readonly email: string;
}

@Requires(SpaceResolver, (spaces, { spaceId }: SearchMemberCandidates) => spaces.candidates(spaceId))
export class SearchMemberCandidates extends Query<{ data: MemberCandidate[] }> {
  constructor(
    readonly spaceId: string,
    readonly query: string,
    readonly limit: number,
    readonly principal: Principal,
  ) {
    super();
  }
}

const SCAN_PAGE = 500;

@QueryHandler(SearchMemberCandidates)
export class SearchMemberCandidatesHandler implements IQueryHandler<SearchMemberCandidates> {
  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async execute({ spaceId, query, limit, principal }: SearchMemberCandidates) {
    const space = await spaceById(this.readStore, spaceId);
    const needle = query.toLowerCase();
    const members = space.members ?? {};
    const findable = await this.findablePeople(principal);
    const users = this.readStore.reader<UserView>(USERS);
    const data: MemberCandidate[] = [];
    let cursor: string | null = null;
    do {
      const page = await users.find({}, { sort: { field: 'createdAt' }, limit: SCAN_PAGE, cursor });
      for (const user of page.data) {
        if (user.status === 'deactivated' || Object.hasOwn(members, user.id)) continue;
        if (findable && !findable.has(user.id)) continue;
        if (!user.name.toLowerCase().includes(needle) && !user.email.toLowerCase().includes(needle)) continue;
        data.push({ id: user.id, name: user.name, email: user.email });
        if (data.length >= limit) return { data };
      }
      cursor = page.nextCursor;
    } while (cursor !== null);
    return { data };
  }

  /** The people the caller may find: null for everyone (an admin, or the directory open); else its Spaces' members. */
  private async findablePeople(principal: Principal): Promise<ReadonlySet<string> | null> {
    if (permits(principal, 'user.list', null)) return null;
    if ((await peopleDirectorySetting(this.readStore)).open) return null;
    const userId = userIdOf(principal);
    if (!userId) return new Set();
    const own = await findAll<SpaceMemberView>(this.readStore, SPACE_MEMBERS, { userId });
    const shared = new Set<string>();
    for (const { spaceId } of own)
      for (const member of await findAll<SpaceMemberView>(this.readStore, SPACE_MEMBERS, { spaceId }))
        shared.add(member.userId);
    return shared;
  }
}
