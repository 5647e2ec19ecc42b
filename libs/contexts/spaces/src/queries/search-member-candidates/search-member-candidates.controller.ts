// GET /spaces/{spaceId}/member-candidates?query= (our extension): people to add to a Space, by name or e-mail.
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { SearchMemberCandidates } from './search-member-candidates.query.js';

export const MemberCandidatesQuery = z.object({
  query: z
    .string()
    .trim()
    .min(2)
    .max(100)
    .describe('Part of a name or e-mail address, 2 to 100 characters (case-insensitive)'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(20)
    .default(10)
    .describe('At most this many, 1 to 20 (default 10)'),
});

const MemberCandidateDto = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
});

@Controller('api/v1/core/spaces')
export class SearchMemberCandidatesController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Find people to add to a Space (extension)',
    description:
      'Active users whose name or e-mail contains the query and who are not members yet: id, name and e-mail only, ' +
      'at most `limit`. For whoever may add members (owners, editors, admins); a member without that gets 403.',
    query: MemberCandidatesQuery,
    response: {
      status: 200,
      schema: z.object({ data: z.array(MemberCandidateDto) }),
      description: 'The matching people',
    },
    errors: [
      400,
      { status: 403, description: 'The caller may not add members to this Space' },
      { status: 404, description: 'No such Space, or one the caller has no role in' },
    ],
  })
  @Get(':spaceId/member-candidates')
  search(
    @Param('spaceId') spaceId: string,
    @Query(new ZodQuery(MemberCandidatesQuery)) query: z.output<typeof MemberCandidatesQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(
      new SearchMemberCandidates(spaceId, query.query, query.limit, principalOf(caller)),
    );
  }
}
