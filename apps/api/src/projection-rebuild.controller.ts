// POST /projections/{name}/rebuild (admins, our extension): the Operations page's rebuild. The runner holding the
// projection's lease builds a new generation beside the live one (readers keep the old one until it has caught up);
// `GET /health` shows the progress. The request is an event: the audit trail says who asked.
import { Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { commandContext, CurrentCaller, type Caller } from '#access';
import { IdempotencyInterceptor } from '#identity';
import { RequestProjectionRebuild } from '#operations';

const RebuildRequestDto = z.object({
  projection: z.string(),
  outcome: z
    .enum(['requested', 'underWay'])
    .describe(
      'requested: recorded now; underWay: a rebuild was requested or building already (nothing recorded)',
    ),
});

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/projections')
export class ProjectionRebuildController {
  constructor(private readonly commands: CommandBus) {}

  @ApiRoute({
    tag: 'Operations',
    idempotent: true,
    summary: 'Rebuild a projection from the log into a new generation, then switch readers to it (admins)',
    description:
      'The process holding the projection’s lease builds it beside the live generation, which keeps serving until ' +
      'the new one has caught up; `GET /health` shows its progress. The request is recorded as a ' +
      '`ProjectionRebuildRequested` event with who asked. 404 `projection_not_found` for a name no projector has.',
    response: { status: 202, schema: RebuildRequestDto, description: 'Requested, or already under way' },
    errors: [403, 404],
  })
  @Post(':name/rebuild')
  @HttpCode(202)
  async rebuild(@Param('name') name: string, @CurrentCaller() caller: Caller) {
    const { projection, outcome } = await this.commands.execute(
      new RequestProjectionRebuild(name, commandContext(caller)),
    );
    return { projection, outcome };
  }
}
