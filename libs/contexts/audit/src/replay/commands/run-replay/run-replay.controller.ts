// POST /replays (admins, our extension): replay recorded turns against another model and answer the report — the
// web app's Replay page shows it side by side. At most 20 turns a request (each one model call or a few).
import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { IdempotencyInterceptor } from '#identity';
import { RunReplay } from './run-replay.command.js';
import { isoTime } from '../../../queries/get-audit/get-audit.schema.js';

export const ReplayBody = z.strictObject({
  model: z.string().min(1).max(200).describe('The chat model key to replay against'),
  agentId: z.string().min(1).max(128).optional().describe("The Agent's answers"),
  from: isoTime.optional().describe('Answers recorded at or after (ISO 8601)'),
  to: isoTime.optional().describe('Answers recorded at or before (ISO 8601)'),
  messageIds: z.array(z.string().min(1).max(128)).max(20).optional().describe('These answers'),
  limit: z.number().int().min(1).max(20).default(5).describe('At most this many turns, oldest first'),
  reRetrieve: z
    .object({
      mode: z.enum(['hybrid', 'bm25', 'vector']).default('hybrid'),
      limit: z.number().int().min(1).max(50).default(8),
      rerank: z.boolean().default(false),
    })
    .optional()
    .describe('Search the Knowledge again instead of re-sending the passages recorded'),
});

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/replays')
export class RunReplayController {
  constructor(private readonly commands: CommandBus) {}

  @ApiRoute({
    tag: 'Audit',
    idempotent: true,
    summary: 'Replay recorded turns against another model (admins)',
    description:
      'Each answer’s prompt is rebuilt from the log as its turn saw it (the Agent’s prompt then, the passages, ' +
      'memories and Skill versions it recorded) and sent to `model`; the report gives per turn the question, the ' +
      'old and new answers with citations kept, lost and added, tokens and cost. Nothing is appended to ' +
      'conversations; the model calls are the platform’s usage under the replay operation; the run is recorded as ' +
      '`ReplayRan` (who, which answers, which model). 404 `model_not_found` for a model the instance has not ' +
      'configured; 400 `missing_field` without agentId, messageIds or a time range.',
    body: ReplayBody,
    response: { status: 200, description: '{ id, report }: the replay report (see docs/api/audit.md)' },
    errors: [400, 403, 404],
  })
  @Post()
  @HttpCode(200)
  async replay(
    @Body(new ZodBody(ReplayBody)) body: z.output<typeof ReplayBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const { model, reRetrieve, ...selection } = body;
    return this.commands.execute(
      new RunReplay(
        selection,
        { model, ...(reRetrieve ? { reRetrieve } : {}) },
        commandContext(caller),
        principalOf(caller),
      ),
    );
  }
}
