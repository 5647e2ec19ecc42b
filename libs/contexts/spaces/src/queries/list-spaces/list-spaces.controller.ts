// GET /spaces (spec: List Spaces).
import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { ApiRoute, listOf, ListQuery, ZodQuery } from '#http';
import { CurrentCaller, type Caller } from '#access';
import { SpaceDto } from '../get-space/space.dto.js';
import { ListSpaces } from './list-spaces.query.js';

@Controller('api/v1/core/spaces')
export class ListSpacesController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'List Spaces',
    description:
      'An admin lists every Space; another person the Spaces they have a role in (and, with a key granted a list of ' +
      'Agents, those holding them).',
    query: ListQuery,
    response: { status: 200, schema: listOf(SpaceDto), description: 'A page of Spaces, oldest first' },
    errors: [400],
  })
  @Get()
  list(@Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>, @CurrentCaller() caller: Caller) {
    return this.queries.execute(new ListSpaces(query, caller));
  }
}
