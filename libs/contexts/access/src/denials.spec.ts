import { permits } from './denials.js';
import { PLATFORM_USAGE_KEY, platformCaller, type Caller } from './caller.js';
import { asPrincipal } from './principal.js';
import type { CallerKey } from './grants.js';

const caller = (over: {
  id?: string;
  userId?: string;
  isAdmin?: boolean;
  agents?: 'all' | string[];
}): Caller =>
  ({
    apiKey: {
      id: over.id ?? 'key_1',
      agentAccess:
        over.agents === undefined || over.agents === 'all'
          ? { kind: 'all' }
          : { kind: 'agents', agentIds: over.agents },
    } as unknown as CallerKey,
    userId: over.userId ?? 'usr_1',
    isAdmin: over.isAdmin ?? false,
    actor: { type: 'apiKey', id: over.id ?? 'key_1' },
    correlationId: 'c',
  }) as unknown as Caller;

// A Space from before members: its creator, the key `key_owner`, is its owner.
const teamSpace = { id: 'spc_t', createdByApiKeyId: 'key_owner' };
// usr_1 is a member of the Agent's Space; key_owner's user its owner.
const memberSpace = { ...teamSpace, members: { usr_1: 'member', usr_owner: 'owner' } } as const;
const teamAgent = { id: 'agt_t', isPersonal: false, ownerUserId: null, spaceId: 'spc_t', space: memberSpace };
const personal = { id: 'agt_p', isPersonal: true, ownerUserId: 'usr_1', spaceId: null, space: null };

describe('access policy: using and managing Agents', () => {
  it('a grant is the right to use, not to manage: a key granted all Agents manages none in Spaces it may not change', () => {
    const granted = caller({ agents: 'all' });
    expect(permits(granted, 'agent.use', teamAgent)).toBe(true);
    expect(permits(granted, 'agent.manage', { agent: teamAgent, space: teamSpace })).toBe(false);
    expect(
      permits(caller({ agents: ['agt_t'] }), 'agent.manage', { agent: teamAgent, space: teamSpace }),
    ).toBe(false);
  });

  it("the key that may change the Agent's Space manages it, when it reaches the Agent; admins always", () => {
    expect(permits(caller({ id: 'key_owner' }), 'agent.manage', { agent: teamAgent, space: teamSpace })).toBe(
      true,
    );
    expect(
      permits(caller({ id: 'key_owner', agents: [] }), 'agent.manage', {
        agent: teamAgent,
        space: teamSpace,
      }),
    ).toBe(false);
    expect(permits(caller({ isAdmin: true }), 'agent.manage', { agent: teamAgent, space: teamSpace })).toBe(
      true,
    );
    expect(
      permits(caller({ isAdmin: true }), 'agent.manage', {
        agent: { ...teamAgent, spaceId: null },
        space: null,
      }),
    ).toBe(true);
  });

  it('a Space that is not the Agent’s, or no Space, gives no right', () => {
    const owner = caller({ id: 'key_owner' });
    expect(
      permits(owner, 'agent.manage', {
        agent: teamAgent,
        space: { id: 'spc_other', createdByApiKeyId: 'key_owner' },
      }),
    ).toBe(false);
    expect(permits(owner, 'agent.manage', { agent: teamAgent, space: null })).toBe(false);
    expect(permits(owner, 'agent.manage', { agent: { ...teamAgent, spaceId: null }, space: null })).toBe(
      false,
    );
  });

  it('a personal Agent follows its user, not the grant list, and is managed by that user alone', () => {
    expect(permits(caller({ agents: [] }), 'agent.use', personal)).toBe(true);
    expect(permits(caller({ agents: [] }), 'agent.manage', { agent: personal, space: null })).toBe(true);
    expect(permits(caller({ userId: 'usr_2', isAdmin: true }), 'agent.use', personal)).toBe(false);
    expect(
      permits(caller({ userId: 'usr_2', isAdmin: true }), 'agent.manage', { agent: personal, space: null }),
    ).toBe(false);
  });
});

describe('the platform acting through a caller', () => {
  const replay = platformCaller('replay', 'corr');

  it('is the policy’s platform principal, never a key: it reads as the platform and owns nothing of a user', () => {
    expect(asPrincipal(replay)).toEqual({ kind: 'platform', process: 'replay' });
    expect(permits(replay, 'knowledge.read', personal)).toBe(true);
    expect(permits(replay, 'memory.read', personal)).toBe(false);
    expect(replay.apiKey).toBe(PLATFORM_USAGE_KEY);
    expect(PLATFORM_USAGE_KEY.isAdmin).toBe(false);
  });
});
