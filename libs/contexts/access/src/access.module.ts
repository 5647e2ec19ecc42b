// Access: who is calling (authentication, the guard every request passes) and who may (the policy). Global so that
// every context's controllers are guarded; the users context provides the Credentials port it asks.
import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './authentication/api-key.guard.js';
import { EmbedRateLimits, EmbedVisitorSessions } from './authentication/embed-visitor.js';

@Global()
@Module({
  providers: [
    EmbedVisitorSessions,
    EmbedRateLimits,
    ApiKeyGuard,
    { provide: APP_GUARD, useExisting: ApiKeyGuard },
  ],
  exports: [ApiKeyGuard, EmbedVisitorSessions],
})
export class AccessModule {}
