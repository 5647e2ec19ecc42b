// GET/PUT /settings/people-directory (our extension, admins): whether everyone finds every user in the member picker.
import { Body, Controller, Get, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { SPACE_SETTINGS_READ_MODEL } from '../../space-creation.js';
import { GetPeopleDirectory } from '../../queries/get-people-directory/get-people-directory.query.js';
import { SetPeopleDirectory } from './set-people-directory.command.js';

export const PeopleDirectoryBody = z.strictObject({
  open: z
    .boolean()
    .describe(
      'true: whoever may add members to a Space finds every active user by name or e-mail; false (the default): ' +
        'only the people they already share a Space with. Admins always find everyone.',
    ),
});

const PeopleDirectoryDto = z.object({
  open: z.boolean(),
  updatedAt: z.string().nullable().describe('ISO 8601; null while never set (closed)'),
});

const ADMINS = { status: 403, description: '`admin_required`' } as const;

@Controller('api/v1/core/settings/people-directory')
export class PeopleDirectoryController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Whether the people directory is open (extension, admins)',
    response: { status: 200, schema: PeopleDirectoryDto, description: 'The setting' },
    errors: [ADMINS],
  })
  @Get()
  get(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetPeopleDirectory(principalOf(caller)));
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Open or close the people directory (extension, admins)',
    description:
      'Closed (the default), `GET /spaces/{spaceId}/member-candidates` finds only people the caller already shares ' +
      'a Space with; open, every active user. Admins always find everyone.',
    body: PeopleDirectoryBody,
    response: { status: 200, schema: PeopleDirectoryDto, description: 'The setting' },
    errors: [400, ADMINS],
  })
  @Put()
  async set(
    @Body(new ZodBody(PeopleDirectoryBody)) body: z.output<typeof PeopleDirectoryBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    await this.sender.send(new SetPeopleDirectory(body.open, commandContext(caller), principal), [
      SPACE_SETTINGS_READ_MODEL,
    ]);
    return this.queries.execute(new GetPeopleDirectory(principal));
  }
}
