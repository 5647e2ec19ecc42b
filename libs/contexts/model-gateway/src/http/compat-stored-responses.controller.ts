// GET and DELETE /api/compat/v1/responses/{responseId}, GET …/input_items: a stored Responses answer read back or
// deleted by the person whose key made it (anyone else: 404, as for an id that never existed).
import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { z } from 'zod';
import { PlatformError } from '#kernel';
import { ApiRoute, ZodQuery } from '#http';
import { AcceptsBearer, CurrentCaller, type Caller } from '#access';
import { StoredResponses, type ResponseItem } from '../stored-responses/stored-response.repository.js';

const notFound = (responseId: string) =>
  new PlatformError(
    'not_found',
    'response_not_found',
    `Response with id '${responseId}' not found.`,
    'responseId',
  );

const NOT_FOUND = {
  status: 404,
  description: "`response_not_found`: unknown, deleted, expired, or another person's",
} as const;

export const InputItemsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20).describe('Items per page (1-100)'),
    order: z.enum(['asc', 'desc']).default('desc').describe('`desc` (default): the newest item first'),
    after: z.string().max(200).optional().describe('An item id: the page starts after it'),
  })
  .strict();

@AcceptsBearer()
@Controller('api/compat/v1/responses')
export class CompatStoredResponsesController {
  constructor(private readonly responses: StoredResponses) {}

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'A stored response (responses.retrieve)',
    description: 'The `response` object as it was answered, while it is stored (`store` was not false).',
    response: { status: 200, description: 'The `response` object' },
    errors: [NOT_FOUND],
  })
  @Get(':responseId')
  async get(@Param('responseId') responseId: string, @CurrentCaller() caller: Caller) {
    const stored = await this.responses.find(caller.userId, responseId);
    if (!stored) throw notFound(responseId);
    return stored.response;
  }

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: 'Delete a stored response (responses.delete)',
    description:
      "Erases the response's input and output (its data key is destroyed); it cannot be continued after.",
    response: {
      status: 200,
      schema: z.object({ id: z.string(), object: z.literal('response'), deleted: z.literal(true) }),
      description: 'Deleted',
    },
    errors: [NOT_FOUND],
  })
  @Delete(':responseId')
  @HttpCode(200)
  async delete(@Param('responseId') responseId: string, @CurrentCaller() caller: Caller) {
    if (!(await this.responses.delete(caller, responseId))) throw notFound(responseId);
    return { id: responseId, object: 'response' as const, deleted: true as const };
  }

  @ApiRoute({
    tag: 'Compatible API',
    bearer: true,
    summary: "A stored response's input items (responses.inputItems.list)",
    description:
      'The items the response was answered from — those of the responses it continued, then its own input — each ' +
      'with its id (an `item_reference` may name it), a page at a time.',
    query: InputItemsQuery,
    response: {
      status: 200,
      schema: z.object({
        object: z.literal('list'),
        data: z.array(z.record(z.string(), z.unknown())),
        first_id: z.string().nullable(),
        last_id: z.string().nullable(),
        has_more: z.boolean(),
      }),
      description: 'A page of input items',
    },
    errors: [{ status: 400, description: 'Invalid query' }, NOT_FOUND],
  })
  @Get(':responseId/input_items')
  async inputItems(
    @Param('responseId') responseId: string,
    @Query(new ZodQuery(InputItemsQuery)) query: z.output<typeof InputItemsQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    const stored = await this.responses.find(caller.userId, responseId);
    if (!stored) throw notFound(responseId);
    const ordered: ResponseItem[] = query.order === 'desc' ? [...stored.input].reverse() : stored.input;
    const start = query.after ? ordered.findIndex((item) => item.id === query.after) + 1 : 0;
    const data = ordered.slice(start, start + query.limit);
    return {
      object: 'list' as const,
      data,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
      has_more: start + query.limit < ordered.length,
    };
  }
}
