// The apps context's answer to identity's AppCallers: a bridge request's token is an App token (looked up by its
// hash in the Apps read model) or a `svc_session_token` (verified, then its App and its person looked up). The
// caller's allowlist is the targeted Agent when the App's allowlist document for it exists (the allowlist process
// keeps one per App and Agent), else empty: the one policy then answers 403 for an Agent outside it.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { type UserView } from '#identity';
import { AppCallers, sourceOf, type Caller } from '#access';
import { READ_STORE, type ReadStore } from '#read-store';
import { APP_TOKEN_PREFIX, hashAppToken } from './app-token.js';
import { AppSessionTokens, liveSessionToken, SESSION_TOKEN_PREFIX } from './app-session-token.js';
import {
  APP_ALLOWLIST,
  APPS,
  allowlistEntryId,
  type AppAllowlistEntry,
  type AppView,
} from './apps.read-model.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

@Injectable()
export class BridgeCallers extends AppCallers {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly sessionTokens: AppSessionTokens,
  ) {
    super();
  }

  async callerOf(token: string, agentId: string | null, request: FastifyRequest): Promise<Caller | null> {
    let app: AppView | null = null;
    let user: UserView | null = null;
    if (token.startsWith(APP_TOKEN_PREFIX)) {
      const page = await this.readStore
        .reader<AppView>(APPS)
        .find({ tokenHash: hashAppToken(token) }, { limit: 1 });
      app = page.data[0] ?? null;
    } else if (token.startsWith(SESSION_TOKEN_PREFIX)) {
      // The token ends with its session: signed out, revoked or expired, it is refused.
      const holder = await liveSessionToken(this.sessionTokens, this.readStore, token);
      if (!holder) return null;
      app = await this.readStore.reader<AppView>(APPS).get(holder.claims.appId);
      user = holder.user;
    }
    if (!app) return null;
    const allowed =
      agentId !== null &&
      (await this.readStore
        .reader<AppAllowlistEntry>(APP_ALLOWLIST)
        .get(allowlistEntryId(app.id, agentId))) !== null;
    const requestId = request.headers['x-request-id'];
    const principalUser = user ? { userId: user.id, isAdmin: user.role === 'admin' } : undefined;
    // Usage and Idempotency-Keys are the App's (its id stands for a key), or the person's through it.
    const standIn = user ? `${app.id}:${user.id}` : app.id;
    return {
      apiKey: {
        id: standIn,
        name: `app ${app.name}`,
        ownerUserId: user?.id ?? app.id,
        agentAccess: { kind: 'agents', agentIds: allowed ? [agentId] : [] },
        isAdmin: false,
        usageLimit: null,
      },
      app: {
        appId: app.id,
        allowlist: agentId === null ? 'standalone' : allowed ? [agentId] : [],
        ...(principalUser ? { user: principalUser } : {}),
      },
      actor: { kind: 'app', id: app.id },
      userId: user?.id ?? app.id,
      isAdmin: false,
      correlationId: typeof requestId === 'string' && REQUEST_ID.test(requestId) ? requestId : randomUUID(),
      source: sourceOf(request),
    };
  }
}
