// GET /invitations (admins).
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ListQuery, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { InvitationDto } from './invitation.dto.js';
import { ListInvitations } from './list-invitations.query.js';

@Controller('api/v1/core')
export class ListInvitationsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Users',
    summary: 'List invitations (admin)',
    query: ListQuery,
    response: { status: 200, schema: listOf(InvitationDto), description: 'A page of invitations' },
    errors: [400, 403],
  })
  @Get('invitations')
  list(@Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListInvitations(query, caller));
  }
}
