// Who calls models directly is asked once, by the guard, from the compatible routes' rows (`model.call`): an API key
// may call models directly, a principal the policy denies may not; the scope of the call then reads no policy.
import { ForbiddenError } from '#kernel';
import { demandOfPrincipal, ROUTE_AUTHORIZATION, type Caller } from '#access';
import { directCallScope } from './model-gateway.js';

const caller = (overrides: Partial<Caller> = {}): Caller =>
  ({
    apiKey: { id: 'key_1', agentAccess: { kind: 'agents', agentIds: [] }, isAdmin: false },
    actor: { kind: 'apiKey', id: 'key_1' },
    userId: 'usr_1',
    isAdmin: false,
    correlationId: 'corr-1',
    ...overrides,
  }) as Caller;

/** What the guard does with a compatible route's row before the controller runs. */
const guardOfCompatibleRoutes = (who: Caller): void => {
  const rows = Object.entries(ROUTE_AUTHORIZATION).filter(([route]) => route.includes(' /api/compat/'));
  expect(rows.length).toBeGreaterThan(0);
  for (const [, rule] of rows) {
    expect(rule).toBe('model.call');
    demandOfPrincipal(who, 'model.call');
  }
};

describe('directCallScope', () => {
  it("gives an API key's direct call its scope (no Agent)", () => {
    guardOfCompatibleRoutes(caller());
    expect(directCallScope(caller(), 'compat')).toMatchObject({
      userId: 'usr_1',
      agentId: null,
      surface: 'compat',
      correlationId: 'corr-1',
    });
  });

  it('refuses a principal the policy does not let call models directly (a member signed in)', () => {
    const session = caller({ session: { id: 'ses_1' } });
    expect(() => guardOfCompatibleRoutes(session)).toThrow(ForbiddenError);
    expect(() => guardOfCompatibleRoutes(session)).toThrow(
      expect.objectContaining({ code: 'principal_not_supported' }),
    );
  });
});
