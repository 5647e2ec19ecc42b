// The identity and access context: users, API keys, the admin bootstrap and the API-key guard on every route.
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AdminBootstrap } from './admin-bootstrap.js';
import { ChangeApiKeyController } from './commands/change-api-key/change-api-key.controller.js';
import { ChangeApiKeyHandler } from './commands/change-api-key/change-api-key.command.js';
import { IssueApiKeyController } from './commands/issue-api-key/issue-api-key.controller.js';
import { IssueApiKeyHandler } from './commands/issue-api-key/issue-api-key.command.js';
import { RegisterUserHandler } from './commands/register-user/register-user.command.js';
import { RevokeApiKeyController } from './commands/revoke-api-key/revoke-api-key.controller.js';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.command.js';
import { ApiKeyGuard } from './http/api-key.guard.js';
import { GetApiKeyController } from './queries/get-api-key/get-api-key.controller.js';
import { GetApiKeyHandler } from './queries/get-api-key/get-api-key.query.js';
import { GetCurrentUserController } from './queries/get-current-user/get-current-user.controller.js';
import { GetCurrentUserHandler } from './queries/get-current-user/get-current-user.query.js';
import { ListApiKeysController } from './queries/list-api-keys/list-api-keys.controller.js';
import { ListApiKeysHandler } from './queries/list-api-keys/list-api-keys.query.js';
import { ListUsersController } from './queries/list-users/list-users.controller.js';
import { ListUsersHandler } from './queries/list-users/list-users.query.js';

export const IDENTITY_CONTROLLERS = [
  ListApiKeysController,
  GetApiKeyController,
  IssueApiKeyController,
  ChangeApiKeyController,
  RevokeApiKeyController,
  ListUsersController,
  GetCurrentUserController,
];

export const IDENTITY_COMMAND_HANDLERS = [
  RegisterUserHandler,
  IssueApiKeyHandler,
  ChangeApiKeyHandler,
  RevokeApiKeyHandler,
];

export const IDENTITY_QUERY_HANDLERS = [
  ListApiKeysHandler,
  GetApiKeyHandler,
  ListUsersHandler,
  GetCurrentUserHandler,
];

@Module({
  controllers: IDENTITY_CONTROLLERS,
  providers: [
    ...IDENTITY_COMMAND_HANDLERS,
    ...IDENTITY_QUERY_HANDLERS,
    AdminBootstrap,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
  exports: [AdminBootstrap],
})
export class IdentityModule {}
