// Access: who is calling (authentication, the guard every request passes) and who may (the policy, asked by the guard
// for a route's row and by the gate for every command and query). Global so that
// every context's controllers are guarded; the users context provides the Credentials port it asks.
import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './authentication/api-key.guard.js';
import { EmbedRateLimits, EmbedVisitorSessions } from './authentication/embed-visitor.js';
import { MESSAGE_GATE } from '#eventsourcing';
import { AccessGate } from './enforcement/access-gate.js';

@Global()
@Module({
  providers: [
    EmbedVisitorSessions,
    EmbedRateLimits,
    ApiKeyGuard,
    { provide: APP_GUARD, useExisting: ApiKeyGuard },
    AccessGate,
    { provide: MESSAGE_GATE, useExisting: AccessGate },
  ],
  exports: [ApiKeyGuard, EmbedVisitorSessions, MESSAGE_GATE],
})
export class AccessModule {}
