// HTTP routes of Spaces (spec: GET/POST /spaces, PATCH/DELETE /spaces/{spaceId}; GET one is our extension).
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  UseInterceptors,
} from '@nestjs/common';
import { IdempotencyInterceptor, commandContext, CurrentCaller, type Caller } from '#identity';
import { CommandBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { newEntityId } from '#eventsourcing';
import { changeableSpace, SpaceGrants, visibleSpace, visibleSpaceIds } from '../space-visibility.js';
import { READ_STORE, type ReadStore } from '#read-store';
import { ReadYourWrites } from '#platform';
import { listOf, ListQuery, ZodBody, ZodQuery, ApiRoute } from '#http';
import { SPACES, type SpaceView } from '../spaces.read-model.js';
import { DEFAULT_SPACE_COLOR } from '../space.decider.js';
import { ChangeSpace, CreateSpace, DeleteSpace, type WriteResult } from '../space.commands.js';
import { ChangeSpaceBody, CreateSpaceBody, slugify, SpaceDto } from './space.schemas.js';

const READ_MODELS = ['spaces'];

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core/spaces')
export class SpacesController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly consistency: ReadYourWrites,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly grants: SpaceGrants,
  ) {}

  private get spaces() {
    return this.readStore.reader<SpaceView>(SPACES);
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'List Spaces',
    description:
      'An admin key lists every Space; another key the Spaces it created and those holding an Agent it is granted.',
    query: ListQuery,
    response: { status: 200, schema: listOf(SpaceDto), description: 'A page of Spaces, oldest first' },
    errors: [400],
  })
  @Get()
  async list(
    @Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    const visible = await visibleSpaceIds(this.readStore, this.grants, caller);
    return this.spaces.find(visible === null ? {} : { id: { $in: visible } }, {
      sort: { field: 'createdAt' },
      limit: query.limit,
      cursor: query.cursor ?? null,
    });
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Get a Space (extension)',
    response: { status: 200, schema: SpaceDto, description: 'The Space' },
    errors: [404],
  })
  @Get(':spaceId')
  get(@Param('spaceId') spaceId: string, @CurrentCaller() caller: Caller): Promise<SpaceView> {
    return visibleSpace(this.readStore, this.grants, spaceId, caller);
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Create a Space',
    body: CreateSpaceBody,
    idempotent: true,
    response: { status: 201, schema: SpaceDto, description: 'The created Space' },
    errors: [400, 409],
  })
  @Post()
  async create(
    @Body(new ZodBody(CreateSpaceBody)) body: z.output<typeof CreateSpaceBody>,
    @CurrentCaller() caller: Caller,
  ) {
    const spaceId = newEntityId(commandContext(caller), 'spc');
    const fields = {
      name: body.name,
      slug: body.slug ?? slugify(body.name),
      description: body.description ?? '',
      color: body.color ?? DEFAULT_SPACE_COLOR,
    };
    const result = await this.commandBus.execute<CreateSpace, WriteResult>(
      new CreateSpace(spaceId, fields, commandContext(caller)),
    );
    return this.afterWrite(result, caller);
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Update a Space',
    body: ChangeSpaceBody,
    response: { status: 200, schema: SpaceDto, description: 'The updated Space' },
    errors: [
      400,
      {
        status: 403,
        description: '`space_change_denied`: only admins and the key that created the Space change it',
      },
      { status: 404, description: 'No such Space, or one this key cannot see' },
      409,
    ],
  })
  @Patch(':spaceId')
  async change(
    @Param('spaceId') spaceId: string,
    @Body(new ZodBody(ChangeSpaceBody)) body: z.output<typeof ChangeSpaceBody>,
    @CurrentCaller() caller: Caller,
  ) {
    await changeableSpace(this.readStore, this.grants, spaceId, caller);
    const result = await this.commandBus.execute<ChangeSpace, WriteResult>(
      new ChangeSpace(spaceId, body, commandContext(caller)),
    );
    return this.afterWrite(result, caller);
  }

  @ApiRoute({
    tag: 'Spaces',
    summary: 'Delete a Space',
    description:
      'Permanently removes the Space and, through their own commands, every Agent in it (and later its Knowledge and ' +
      'conversations). Admins and the key that created the Space only.',
    response: { status: 204, description: 'Deleted' },
    errors: [
      { status: 403, description: '`space_change_denied`: this key only sees the Space' },
      { status: 404, description: 'No such Space, or one this key cannot see' },
    ],
  })
  @Delete(':spaceId')
  @HttpCode(204)
  async delete(@Param('spaceId') spaceId: string, @CurrentCaller() caller: Caller): Promise<void> {
    // A Space already gone is left to the decider (deleting it again is a no-op, an unknown id 404).
    if (await this.spaces.get(spaceId)) await changeableSpace(this.readStore, this.grants, spaceId, caller);
    const result = await this.commandBus.execute<DeleteSpace, WriteResult>(
      new DeleteSpace(spaceId, commandContext(caller)),
    );
    await this.consistency.settle(result.position, READ_MODELS);
  }

  private async afterWrite(result: WriteResult, caller: Caller): Promise<SpaceView> {
    await this.consistency.settle(result.position, READ_MODELS);
    return this.get(result.id, caller);
  }
}
