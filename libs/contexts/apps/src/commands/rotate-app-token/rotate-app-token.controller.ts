// POST /apps/{appId}/token (our design; admins): a new bearer token, shown once; the old one stops at once.
import { Controller, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute } from '#http';
import { IdempotencyInterceptor } from '#identity';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { APPS_READ_MODEL } from '../../apps.read-model.js';
import { RotateAppToken } from './rotate-app-token.command.js';

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/apps')
export class RotateAppTokenController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Apps',
    summary: "Rotate an App's bearer token (admins)",
    idempotent: true,
    response: {
      status: 200,
      schema: z.object({ id: z.string(), token: z.string() }),
      description: 'The new token',
    },
    errors: [{ status: 403, description: '`admin_required`' }, 404],
  })
  @Post(':appId/token')
  @HttpCode(200)
  async rotate(@Param('appId') appId: string, @CurrentCaller() caller: Caller) {
    const { token } = await this.writes.send(
      new RotateAppToken(appId, commandContext(caller), principalOf(caller)),
      [APPS_READ_MODEL],
    );
    return { id: appId, token };
  }
}
