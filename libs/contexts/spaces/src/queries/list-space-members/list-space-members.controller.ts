// GET /spaces/{spaceId}/members (our extension: Space membership).
import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ListQuery, ZodQuery } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { ListSpaceMembers } from './list-space-members.query.js';
import { SpaceMemberDto } from './space-member.dto.js';

@Controller('api/v1/core/spaces')
export class ListSpaceMembersController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'List the members of a Space (extension)',
    description: 'Whoever has a role in the Space (owner, editor, member), and admins.',
    query: ListQuery,
    response: { status: 200, schema: listOf(SpaceMemberDto), description: 'A page of members, oldest first' },
    errors: [400, { status: 404, description: 'No such Space, or one the caller has no role in' }],
  })
  @Get(':spaceId/members')
  list(
    @Param('spaceId') spaceId: string,
    @Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new ListSpaceMembers(spaceId, query, principalOf(caller)));
  }
}
