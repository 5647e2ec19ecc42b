// GET /knowledge/{agentId}/documents (spec).
import { Controller, UseInterceptors } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiRoute, listOf, ZodQuery } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { CurrentCaller, type Caller } from '#access';
import { Get, Param, Query } from '@nestjs/common';
import type { z } from 'zod';
import { DocumentDto, DocumentListQuery } from '../../knowledge.schemas.js';
import { ListDocuments } from './list-documents.query.js';
import { ListDocumentsAsOf } from '../knowledge-as-of/knowledge-as-of.query.js';

const DocumentList = listOf(DocumentDto);

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/knowledge/:agentId')
export class ListDocumentsController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Knowledge',
    summary: 'List the documents an Agent can search: its own, its Space’s and Global ones',
    query: DocumentListQuery,
    response: { status: 200, schema: DocumentList, description: 'Oldest first' },
    errors: [400, 403, 404],
  })
  @Get('documents')
  list(
    @Param('agentId') agentId: string,
    @Query(new ZodQuery(DocumentListQuery)) query: z.output<typeof DocumentListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    if (query.asOf !== undefined) return this.queries.execute(new ListDocumentsAsOf(agentId, query, caller));
    return this.queries.execute(new ListDocuments(agentId, query, caller));
  }
}
