// HTTP routes of API keys and users (our extension, admin only except GET /users/me). The key is returned once.
import {
  Body,
  Controller,
  Delete,
  Get,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  UseInterceptors,
} from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { CommandBus } from '@nestjs/cqrs';
import type { z } from 'zod';
import { NotFoundError, type PlatformError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { ReadYourWrites } from '#platform';
import { commandContext, CurrentCaller, type Caller } from './caller.js';
import { listOf, ListQuery, ZodBody, ZodQuery, ApiRoute } from '#http';
import { API_KEYS, type ApiKeyView } from '../api-keys.read-model.js';
import { USERS, type UserView } from '../users.read-model.js';
import { assertAdmin } from '../access-policy.js';
import type { AgentAccess, UsageLimit } from '../api-key.events.js';
import {
  ChangeApiKey,
  IssueApiKey,
  RegisterUser,
  RevokeApiKey,
  type WriteResult,
} from '../commands/identity.commands.js';
import { ApiKeyDto, ChangeApiKeyBody, IssueApiKeyBody, IssuedApiKeyDto, UserDto } from './api-key.schemas.js';

const READ_MODELS = ['api-keys', 'users'];

const toAccess = (agents: 'all' | string[]): AgentAccess =>
  agents === 'all' ? { kind: 'all' } : { kind: 'agents', agentIds: agents };
export const toLimit = (
  limit: { tokens?: number | null; costUsd?: number | null; window: UsageLimit['window'] } | null,
): UsageLimit | null =>
  limit ? { tokens: limit.tokens ?? null, costUsd: limit.costUsd ?? null, window: limit.window } : null;

export const toApiKeyDto = (view: ApiKeyView) => ({
  id: view.id,
  name: view.name,
  keyPrefix: view.keyPrefix,
  ownerUserId: view.ownerUserId,
  agents: view.agentAccess.kind === 'all' ? ('all' as const) : [...view.agentAccess.agentIds],
  isAdmin: view.isAdmin,
  usageLimit: view.usageLimit,
  revoked: view.revoked,
  revokedAt: view.revokedAt,
  createdAt: view.createdAt,
  updatedAt: view.updatedAt,
});

@UseInterceptors(IdempotencyInterceptor)
@Controller('api/v1/core')
export class ApiKeysController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly consistency: ReadYourWrites,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  private get keys() {
    return this.readStore.reader<ApiKeyView>(API_KEYS);
  }

  @ApiRoute({
    tag: 'API keys',
    summary: 'List API keys (admin)',
    query: ListQuery,
    response: { status: 200, schema: listOf(ApiKeyDto), description: 'A page of keys; never the secrets' },
    errors: [400, 403],
  })
  @Get('api-keys')
  async list(
    @Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    assertAdmin(caller);
    const page = await this.keys.find(
      {},
      { sort: { field: 'createdAt' }, limit: query.limit, cursor: query.cursor ?? null },
    );
    return { data: page.data.map(toApiKeyDto), nextCursor: page.nextCursor };
  }

  @ApiRoute({
    tag: 'API keys',
    summary: 'Get an API key (admin)',
    response: { status: 200, schema: ApiKeyDto, description: 'The key' },
    errors: [403, 404],
  })
  @Get('api-keys/:apiKeyId')
  async get(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    assertAdmin(caller);
    return toApiKeyDto(await this.view(apiKeyId));
  }

  @ApiRoute({
    tag: 'API keys',
    summary: 'Issue an API key (admin)',
    description: 'The secret `key` is in this response only; it is stored hashed.',
    body: IssueApiKeyBody,
    idempotent: true,
    response: { status: 201, schema: IssuedApiKeyDto, description: 'The issued key with its secret' },
    errors: [400, 403, 409],
  })
  @Post('api-keys')
  async issue(
    @Body(new ZodBody(IssueApiKeyBody)) body: z.output<typeof IssueApiKeyBody>,
    @CurrentCaller() caller: Caller,
  ) {
    assertAdmin(caller);
    const context = commandContext(caller);
    let ownerUserId = caller.userId;
    if (body.owner) {
      const email = body.owner.email.toLowerCase();
      const existing = (await this.readStore.reader<UserView>(USERS).find({ email }, { limit: 1 })).data[0];
      ownerUserId =
        existing?.id ??
        (
          await this.commandBus
            .execute<RegisterUser, WriteResult>(
              new RegisterUser(
                { email, name: body.owner.name ?? '', role: body.isAdmin ? 'admin' : 'member' },
                context,
              ),
            )
            .catch((error: PlatformError) => {
              throw error.code === 'email_taken' ? Object.assign(error, { param: 'owner.email' }) : error;
            })
        ).id;
    }
    const issued = await this.commandBus.execute<IssueApiKey, WriteResult & { key: string | null }>(
      new IssueApiKey(
        {
          name: body.name,
          ownerUserId,
          agentAccess: toAccess(body.agents),
          isAdmin: body.isAdmin,
          usageLimit: toLimit(body.usageLimit),
        },
        context,
      ),
    );
    await this.consistency.settle(issued.position, READ_MODELS);
    return { ...toApiKeyDto(await this.view(issued.id)), key: issued.key };
  }

  @ApiRoute({
    tag: 'API keys',
    summary: 'Change name, Agent grants or usage limit (admin)',
    body: ChangeApiKeyBody,
    response: { status: 200, schema: ApiKeyDto, description: 'The key' },
    errors: [400, 403, 404],
  })
  @Patch('api-keys/:apiKeyId')
  async change(
    @Param('apiKeyId') apiKeyId: string,
    @Body(new ZodBody(ChangeApiKeyBody)) body: z.output<typeof ChangeApiKeyBody>,
    @CurrentCaller() caller: Caller,
  ) {
    assertAdmin(caller);
    const result = await this.commandBus.execute<ChangeApiKey, WriteResult>(
      new ChangeApiKey(
        {
          apiKeyId,
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.agents !== undefined ? { agentAccess: toAccess(body.agents) } : {}),
          ...(body.usageLimit !== undefined ? { usageLimit: toLimit(body.usageLimit) } : {}),
        },
        commandContext(caller),
      ),
    );
    await this.consistency.settle(result.position, READ_MODELS);
    return toApiKeyDto(await this.view(apiKeyId));
  }

  @ApiRoute({
    tag: 'API keys',
    summary: 'Revoke an API key (admin)',
    response: { status: 200, schema: ApiKeyDto, description: 'The revoked key' },
    errors: [403, 404],
  })
  @Delete('api-keys/:apiKeyId')
  async revoke(@Param('apiKeyId') apiKeyId: string, @CurrentCaller() caller: Caller) {
    assertAdmin(caller);
    const result = await this.commandBus.execute<RevokeApiKey, WriteResult>(
      new RevokeApiKey(apiKeyId, commandContext(caller)),
    );
    await this.consistency.settle(result.position, READ_MODELS);
    return toApiKeyDto(await this.view(apiKeyId));
  }

  @ApiRoute({
    tag: 'Users',
    summary: 'List users (admin)',
    query: ListQuery,
    response: { status: 200, schema: listOf(UserDto), description: 'A page of users' },
    errors: [400, 403],
  })
  @Get('users')
  async users(
    @Query(new ZodQuery(ListQuery)) query: z.output<typeof ListQuery>,
    @CurrentCaller() caller: Caller,
  ) {
    assertAdmin(caller);
    return this.readStore
      .reader<UserView>(USERS)
      .find({}, { sort: { field: 'createdAt' }, limit: query.limit, cursor: query.cursor ?? null });
  }

  @ApiRoute({
    tag: 'Users',
    summary: "The calling key's owner",
    response: { status: 200, schema: UserDto, description: 'The user' },
  })
  @Get('users/me')
  async me(@CurrentCaller() caller: Caller) {
    const user = await this.readStore.reader<UserView>(USERS).get(caller.userId);
    if (!user) throw new NotFoundError('User', caller.userId);
    return user;
  }

  private async view(apiKeyId: string): Promise<ApiKeyView> {
    const view = await this.keys.get(apiKeyId);
    if (!view) throw new NotFoundError('API key', apiKeyId);
    return view;
  }
}
