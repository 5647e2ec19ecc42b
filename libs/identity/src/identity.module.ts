// The identity and access context: users, API keys, the admin bootstrap and the API-key guard on every route.
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AdminBootstrap } from './admin-bootstrap.js';
import { IDENTITY_COMMAND_HANDLERS } from './commands/identity.commands.js';
import { ApiKeyGuard } from './http/api-key.guard.js';
import { ApiKeysController } from './http/api-keys.controller.js';

@Module({
  controllers: [ApiKeysController],
  providers: [...IDENTITY_COMMAND_HANDLERS, AdminBootstrap, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [AdminBootstrap],
})
export class IdentityModule {}
