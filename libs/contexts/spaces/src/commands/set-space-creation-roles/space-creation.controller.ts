// GET/PUT /settings/space-creation (our extension, admins): the instance roles allowed to create shared Spaces.
import { Body, Controller, Get, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { ApiRoute, ZodBody } from '#http';
import { commandContext, CurrentCaller, principalOf, type Caller } from '#access';
import { ReadYourWritesBus } from '#eventsourcing';
import { SPACE_SETTINGS_READ_MODEL } from '../../space-creation.js';
import { GetSpaceCreationRoles } from '../../queries/get-space-creation-roles/get-space-creation-roles.query.js';
import { SetSpaceCreationRoles } from './set-space-creation-roles.command.js';

const Role = z.enum(['admin', 'member']);

export const SpaceCreationBody = z.strictObject({
  creatorRoles: z
    .array(Role)
    .max(2)
    .describe(
      'The instance roles that may create shared Spaces; admins always may ([] or ["admin"]: admins only)',
    ),
});

const SpaceCreationDto = z.object({
  creatorRoles: z.array(Role),
  updatedAt: z.string().nullable().describe('ISO 8601; null while never set (everyone may)'),
});

const ADMINS = { status: 403, description: '`admin_required`' } as const;

@Controller('api/v1/core/settings/space-creation')
export class SpaceCreationController {
  constructor(
    private readonly sender: ReadYourWritesBus,
    private readonly queries: QueryBus,
  ) {}

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Who may create shared Spaces (extension, admins)',
    response: { status: 200, schema: SpaceCreationDto, description: 'The setting' },
    errors: [ADMINS],
  })
  @Get()
  get(@CurrentCaller() caller: Caller) {
    return this.queries.execute(new GetSpaceCreationRoles(principalOf(caller)));
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Set who may create shared Spaces (extension, admins)',
    description:
      'Others get 403 `space_creation_restricted` creating a Space; their private personal Space is not affected.',
    body: SpaceCreationBody,
    response: { status: 200, schema: SpaceCreationDto, description: 'The setting' },
    errors: [400, ADMINS],
  })
  @Put()
  async set(
    @Body(new ZodBody(SpaceCreationBody)) body: z.output<typeof SpaceCreationBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const principal = principalOf(caller);
    await this.sender.send(new SetSpaceCreationRoles(body.creatorRoles, commandContext(caller), principal), [
      SPACE_SETTINGS_READ_MODEL,
    ]);
    return this.queries.execute(new GetSpaceCreationRoles(principal));
  }
}
