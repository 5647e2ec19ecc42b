// Authentication for every route not marked @Public(): the core API takes `x-api-key` only; routes marked
// @AcceptsBearer() (the compatible gateway) also take `Authorization: Bearer`. Unknown or revoked keys get 401.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { UnauthorizedError } from '../../../kernel/src/index.js';
import { READ_STORE, type ReadStore } from '../../../read-store/src/read-store.port.js';
import { PUBLIC_ROUTE, type RequestWithCaller } from '../../../http/src/caller.js';
import { API_KEYS, type ApiKeyView } from '../../../../projections/api-keys/api-keys.projector.js';
import { hashApiKey } from '../api-key.secret.js';

export const ACCEPTS_BEARER = 'platform:accepts-bearer';
export const AcceptsBearer = () => SetMetadata(ACCEPTS_BEARER, true);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<RequestWithCaller>();
    const key = this.presentedKey(
      request,
      this.reflector.getAllAndOverride<boolean>(ACCEPTS_BEARER, targets) ?? false,
    );
    if (!key) throw new UnauthorizedError('missing_api_key', 'send an API key in the x-api-key header');
    const page = await this.readStore
      .reader<ApiKeyView>(API_KEYS)
      .find({ keyHash: hashApiKey(key) }, { limit: 1 });
    const apiKey = page.data[0];
    if (!apiKey) throw new UnauthorizedError('invalid_api_key', 'the API key is not valid');
    if (apiKey.revoked) throw new UnauthorizedError('api_key_revoked', 'the API key has been revoked');
    const requestId = request.headers['x-request-id'];
    request.caller = {
      apiKey,
      actor: { kind: 'apiKey', id: apiKey.id },
      userId: apiKey.ownerUserId,
      isAdmin: apiKey.isAdmin,
      correlationId: typeof requestId === 'string' && REQUEST_ID.test(requestId) ? requestId : randomUUID(),
    };
    return true;
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
