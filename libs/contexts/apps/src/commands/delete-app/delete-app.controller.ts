// DELETE /apps/{appId} (our design; admins).
import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiRoute } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { APP_ALLOWLIST_PROCESS } from '../../app-allowlist.process.js';
import { APPS_READ_MODEL } from '../../apps.read-model.js';
import { DeleteApp } from './delete-app.command.js';

@Controller('api/v1/core/apps')
export class DeleteAppController {
  constructor(private readonly writes: ReadYourWritesBus) {}

  @ApiRoute({
    tag: 'Apps',
    summary: 'Delete an App (admins)',
    response: { status: 204, description: 'Deleted' },
    errors: [{ status: 403, description: '`admin_required`' }, 404],
  })
  @Delete(':appId')
  @HttpCode(204)
  async delete(@Param('appId') appId: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.writes.send(new DeleteApp(appId, commandContext(caller), principalOf(caller)), [
      APPS_READ_MODEL,
      { projection: APP_ALLOWLIST_PROCESS },
    ]);
  }
}
