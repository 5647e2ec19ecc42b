// The compatible routes ask the policy (`model.call`) like every other route, through directCallScope (and
// assertMayCallModels for the model list): an API key may call models directly, a principal the policy denies may not.
import { ForbiddenError } from '#kernel';
import type { Caller } from '#access';
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

describe('directCallScope', () => {
  it("gives an API key's direct call its scope (no Agent)", () => {
    expect(directCallScope(caller(), 'compat')).toMatchObject({
      userId: 'usr_1',
      agentId: null,
      surface: 'compat',
      correlationId: 'corr-1',
    });
  });

  it('refuses a principal the policy does not let call models directly (a member signed in)', () => {
    const session = caller({ session: { id: 'ses_1' } });
    expect(() => directCallScope(session, 'compat')).toThrow(ForbiddenError);
    expect(() => directCallScope(session, 'compat')).toThrow(
      expect.objectContaining({ code: 'principal_not_supported' }),
    );
  });
});
