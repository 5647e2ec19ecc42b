// GET /memory/{agentId}/memories/{memoryId}/versions and …/answers (our design).
import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { CurrentCaller, principalOf, type Caller } from '#access';
import { MemoryAnswersDto, MemoryVersionDto } from '../../memory.schemas.js';
import { GetMemoryHistory } from './get-memory-history.query.js';

@Controller('api/v1/core/memory/:agentId/memories/:memoryId')
export class GetMemoryHistoryController {
  constructor(private readonly queries: QueryBus) {}

  @ApiRoute({
    tag: 'Memory',
    summary: "A memory's versions",
    description:
      'Every version, oldest first: its text, who or what wrote it, the conversation message that caused it.',
    response: {
      status: 200,
      schema: z.object({ data: z.array(MemoryVersionDto) }),
      description: 'The versions',
    },
    errors: [403, 404],
  })
  @Get('versions')
  versions(
    @Param('agentId') agentId: string,
    @Param('memoryId') memoryId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetMemoryHistory(agentId, memoryId, 'versions', principalOf(caller)));
  }

  @ApiRoute({
    tag: 'Memory',
    summary: 'The answers that used a memory',
    description:
      'Every assistant message whose prompt held the memory (see its provenance), oldest first. For a shared memory, ' +
      "the Agent's manager and admins see every user's answers; any other user sees their own.",
    response: { status: 200, schema: MemoryAnswersDto, description: 'The answers' },
    errors: [403, 404],
  })
  @Get('answers')
  answers(
    @Param('agentId') agentId: string,
    @Param('memoryId') memoryId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queries.execute(new GetMemoryHistory(agentId, memoryId, 'answers', principalOf(caller)));
  }
}
