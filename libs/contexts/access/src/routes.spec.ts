import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ForbiddenError, type PlatformConfig } from '#kernel';
import { ApiKeyGuard } from './authentication/api-key.guard.js';
import type { Credentials } from './authentication/credentials.js';
import type { EmbedRateLimits, EmbedVisitorSessions } from './authentication/embed-visitor.js';
import { routeRuleOf } from './routes.js';

/** The guard on a route marked @Public(), as the router registered it. */
const publicRequest = (method: string, url: string) => {
  const guard = new ApiKeyGuard(
    { getAllAndOverride: () => true } as unknown as Reflector,
    {} as PlatformConfig,
    {} as Credentials,
    {} as EmbedVisitorSessions,
    {} as EmbedRateLimits,
  );
  const request = { method, url, routeOptions: { url }, headers: {} };
  const context = {
    getHandler: () => undefined,
    getClass: () => undefined,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return () => guard.canActivate(context);
};

describe('the authorization route table', () => {
  it("reads a request's row from its registered route; HEAD is its GET route's", () => {
    expect(routeRuleOf('GET', '/api/v1/core/agents/:agentId')).toBe('agent.use');
    expect(routeRuleOf('put', '/api/v1/core/agents/:agentId/prompt')).toBe('agent.manage');
    expect(routeRuleOf('HEAD', '/health')).toBe('public');
    expect(routeRuleOf('GET', '/api/v1/core/spaces')).toEqual({ each: 'space.read' });
    expect(routeRuleOf('POST', '/api/v1/core/agents/:agentId')).toBeUndefined();
    expect(routeRuleOf('GET', '/api/v1/core/constructor')).toBeUndefined();
  });

  it('denies a route without a row to everyone, a public one too: 403 route_not_authorized', async () => {
    await expect(publicRequest('GET', '/health')()).resolves.toBe(true);
    await expect(publicRequest('GET', '/api/v1/core/new-thing')()).rejects.toThrow(ForbiddenError);
    await expect(publicRequest('GET', '/api/v1/core/new-thing')()).rejects.toMatchObject({
      code: 'route_not_authorized',
    });
  });
});
