// Authentication for every route not marked @Public(): the core API takes `x-api-key` only; routes marked
// @AcceptsBearer() (the compatible gateway) also take `Authorization: Bearer`. Unknown or revoked keys get 401.
// Deny by default: a route without a row in the authorization table (ROUTE_AUTHORIZATION) answers 403
// `route_not_authorized` to everyone, public or not, until its row says who may call it.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, UnauthorizedError } from '#kernel';
import { READ_STORE, type ReadStore } from '#read-store';
import { PUBLIC_ROUTE, sourceOf, type RequestWithCaller } from './caller.js';
import { API_KEYS, API_KEYS_READ_MODEL, type ApiKeyView } from '../api-keys.read-model.js';
import { ProjectionRunner } from '#eventsourcing';
import { routeRuleOf } from '../authorization/routes.js';

import { hashApiKey } from '../api-key.secret.js';
import { USERS, USERS_READ_MODEL, type UserView } from '../users.read-model.js';

export const ACCEPTS_BEARER = 'platform:accepts-bearer';
export const AcceptsBearer = () => SetMetadata(ACCEPTS_BEARER, true);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** How long a cached key is trusted when this process does not run the api-keys projection itself. */
const REMOTE_TTL_MS = 1_000;
const LOCAL_TTL_MS = 60_000;
const CACHE_LIMIT = 10_000;

/**
 * Known keys by hash (and their owners by id), so a request costs no read-store query. Entries are dropped whenever
 * their projection applies a batch in this process (a revocation or a deactivation is then seen at once; a batch it
 * skipped changes nothing); when another process runs that projection they live one second. A generation counter
 * keeps a lookup that raced with a batch from caching what it read.
 */
class Known<T> {
  private readonly entries = new Map<string, { view: T; at: number }>();
  private generation = 0;

  constructor(
    private readonly runner: ProjectionRunner,
    private readonly projection: string,
  ) {
    runner.on('progress', (progress) => {
      if (progress.name !== projection || !progress.applied) return;
      this.generation++;
      this.entries.clear();
    });
  }

  get(hash: string): T | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    const local = this.runner.isLive(this.projection);
    if (Date.now() - entry.at <= (local ? LOCAL_TTL_MS : REMOTE_TTL_MS)) return entry.view;
    this.entries.delete(hash);
    return undefined;
  }

  async lookup(hash: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const cached = this.get(hash);
    if (cached) return cached;
    const generation = this.generation;
    const view = await read();
    if (view && generation === this.generation) {
      if (this.entries.size >= CACHE_LIMIT) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(hash, { view, at: Date.now() });
    }
    return view;
  }
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly known: Known<ApiKeyView>;
  private readonly users: Known<UserView>;

  constructor(
    private readonly reflector: Reflector,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    runner: ProjectionRunner,
  ) {
    this.known = new Known(runner, API_KEYS_READ_MODEL.projection);
    this.users = new Known(runner, USERS_READ_MODEL.projection);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const request = context.switchToHttp().getRequest<RequestWithCaller>();
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) {
      this.requireRow(request);
      return true;
    }
    const bearer = this.reflector.getAllAndOverride<boolean>(ACCEPTS_BEARER, targets) ?? false;
    const key = this.presentedKey(request, bearer);
    if (!key)
      throw new UnauthorizedError(
        'missing_api_key',
        bearer
          ? 'send an API key as `Authorization: Bearer <key>` or in the x-api-key header'
          : 'send an API key in the x-api-key header',
      );
    const keyHash = hashApiKey(key);
    const apiKey = await this.known.lookup(keyHash, async () => {
      const page = await this.readStore.reader<ApiKeyView>(API_KEYS).find({ keyHash }, { limit: 1 });
      return page.data[0];
    });
    if (!apiKey) throw new UnauthorizedError('invalid_api_key', 'the API key is not valid');
    if (apiKey.revoked) throw new UnauthorizedError('api_key_revoked', 'the API key has been revoked');
    await this.requireActiveUser(apiKey.ownerUserId);
    this.requireRow(request);
    const requestId = request.headers['x-request-id'];
    request.caller = {
      apiKey,
      actor: { kind: 'apiKey', id: apiKey.id },
      userId: apiKey.ownerUserId,
      isAdmin: apiKey.isAdmin,
      correlationId: typeof requestId === 'string' && REQUEST_ID.test(requestId) ? requestId : randomUUID(),
      source: sourceOf(request),
    };
    return true;
  }

  /** 401 when the credential's user is deactivated: every key and session of that person stops at once. */
  private async requireActiveUser(userId: string): Promise<void> {
    const user = await this.users.lookup(
      userId,
      async () => (await this.readStore.reader<UserView>(USERS).get(userId)) ?? undefined,
    );
    if (user?.status === 'deactivated')
      throw new UnauthorizedError('user_deactivated', 'the account of this credential is deactivated');
  }

  /** 403 unless the route has a row in the authorization table. */
  private requireRow(request: RequestWithCaller): void {
    const route = request.routeOptions.url ?? request.url;
    if (routeRuleOf(request.method, route) === undefined)
      throw new ForbiddenError(
        'route_not_authorized',
        'this route has no row in the authorization table, so no one may call it yet',
      );
  }

  private presentedKey(request: RequestWithCaller, acceptsBearer: boolean): string | null {
    const header = request.headers['x-api-key'];
    if (typeof header === 'string' && header.length > 0) return header;
    if (!acceptsBearer) return null;
    const authorization = request.headers.authorization;
    const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
    return match ? match[1]! : null;
  }
}
