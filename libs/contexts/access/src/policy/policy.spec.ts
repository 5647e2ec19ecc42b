import { ACTIONS, agentUseScope, authorize, type Action, type Decision } from './policy.js';
import { platformPrincipal, type Principal } from '../principal.js';

const key = (
  over: Partial<{ keyId: string; userId: string; isAdmin: boolean; agents: 'all' | string[] }> = {},
) =>
  ({
    kind: 'apiKey',
    keyId: over.keyId ?? 'key_1',
    userId: over.userId ?? 'usr_1',
    isAdmin: over.isAdmin ?? false,
    grants:
      over.agents === undefined || over.agents === 'all'
        ? { kind: 'all' }
        : { kind: 'agents', agentIds: over.agents },
  }) as const satisfies Principal;

// A Space from before members (its creator, the key `key_owner`, is its owner); usr_1 is a member of `memberSpace`.
const teamSpace = { id: 'spc_t', createdByApiKeyId: 'key_owner' };
const memberSpace = { ...teamSpace, members: { usr_1: 'member', usr_owner: 'owner' } } as const;
const teamAgent = {
  id: 'agt_t',
  isPersonal: false,
  ownerUserId: null,
  spaceId: 'spc_t',
  isPublic: false,
  space: memberSpace,
};
const publicAgent = { ...teamAgent, id: 'agt_pub', isPublic: true };
const personal = { id: 'agt_p', isPersonal: true, ownerUserId: 'usr_1', spaceId: null, space: null };
const denied = (reason: string): Decision => ({ allow: false, reason }) as Decision;
const ALLOW: Decision = { allow: true };

describe('the authorization policy', () => {
  it('denies by default: an unknown action or principal kind has no rule', () => {
    expect(authorize(key({ isAdmin: true }), 'agent.destroy' as Action, null as never)).toEqual(
      denied('no_rule'),
    );
    expect(authorize({ kind: 'robot' } as unknown as Principal, 'agent.use', teamAgent)).toEqual(
      denied('no_rule'),
    );
    expect(authorize(key({ isAdmin: true }), 'toString' as Action, null as never)).toEqual(denied('no_rule'));
  });

  it('an API key uses the Agents it is granted; its user alone reaches a personal Agent, admins included', () => {
    expect(authorize(key({ agents: ['agt_t'] }), 'agent.use', teamAgent)).toEqual(ALLOW);
    expect(authorize(key({ agents: [] }), 'agent.use', teamAgent)).toEqual(denied('agent_access_denied'));
    expect(authorize(key({ agents: [] }), 'agent.use', personal)).toEqual(ALLOW);
    expect(authorize(key({ userId: 'usr_2', isAdmin: true }), 'agent.use', personal)).toEqual(
      denied('agent_access_denied'),
    );
  });

  it('using is not managing: managing needs the right to change the Space (admins always)', () => {
    const resource = { agent: teamAgent, space: memberSpace };
    expect(authorize(key(), 'agent.manage', resource)).toEqual(denied('space_change_denied'));
    expect(authorize(key({ keyId: 'key_owner', userId: 'usr_owner' }), 'agent.manage', resource)).toEqual(
      ALLOW,
    );
    expect(
      authorize(key({ keyId: 'key_owner', userId: 'usr_owner', agents: [] }), 'agent.manage', resource),
    ).toEqual(denied('agent_access_denied'));
    expect(authorize(key({ isAdmin: true }), 'agent.manage', { agent: teamAgent, space: null })).toEqual(
      ALLOW,
    );
    expect(
      authorize(key({ keyId: 'key_owner', userId: 'usr_owner' }), 'agent.manage', {
        agent: teamAgent,
        space: null,
      }),
    ).toEqual(denied('agent_access_denied'));
    expect(authorize(key({ agents: [] }), 'agent.manage', { agent: personal, space: null })).toEqual(ALLOW);
  });

  it('deny by default: an Agent read without its Space is used through no role (issue 22 gap 1)', () => {
    const unread = { ...teamAgent, space: undefined } as never;
    expect(authorize(key(), 'agent.use', unread)).toEqual(denied('agent_access_denied'));
    expect(authorize(key({ agents: ['agt_t'] }), 'agent.use', unread)).toEqual(denied('agent_access_denied'));
    expect(authorize({ kind: 'session', userId: 'usr_1', isAdmin: false }, 'agent.use', unread)).toEqual(
      denied('agent_access_denied'),
    );
    expect(authorize(key(), 'knowledge.read', unread)).toEqual(denied('agent_access_denied'));
    expect(authorize(key(), 'memory.read', unread)).toEqual(denied('agent_access_denied'));
    // Whoever's rule does not read the Space: admins, the platform, the user of a personal Agent.
    expect(authorize(key({ isAdmin: true }), 'agent.use', unread)).toEqual(ALLOW);
    expect(authorize(platformPrincipal('p'), 'agent.use', unread)).toEqual(ALLOW);
    expect(authorize(key(), 'agent.use', { ...personal, space: undefined } as never)).toEqual(ALLOW);
  });

  it("a key's grants narrow its user's rights, never widen them (issue 22 gap 2)", () => {
    const stranger = key({ userId: 'usr_x', agents: ['agt_t'] });
    // A listed Agent of a Space its user has no role in: out of reach, to use and to manage.
    expect(authorize(stranger, 'agent.use', teamAgent)).toEqual(denied('agent_access_denied'));
    expect(authorize(stranger, 'agent.manage', { agent: teamAgent, space: memberSpace })).toEqual(
      denied('agent_access_denied'),
    );
    expect(authorize(stranger, 'knowledge.read', teamAgent)).toEqual(denied('agent_access_denied'));
    // Made a member, the same key uses it; removed, it does not any more (the Space's members as read).
    const joined = { ...memberSpace, members: { ...memberSpace.members, usr_x: 'member' } } as const;
    expect(authorize(stranger, 'agent.use', { ...teamAgent, space: joined })).toEqual(ALLOW);
    expect(authorize(key({ agents: ['agt_t'] }), 'agent.use', teamAgent)).toEqual(ALLOW);
    const removed = { ...memberSpace, members: { usr_owner: 'owner' } } as const;
    expect(authorize(key({ agents: ['agt_t'] }), 'agent.use', { ...teamAgent, space: removed })).toEqual(
      denied('agent_access_denied'),
    );
    // The list narrows an admin's key as well; an admin user's key that is no admin key uses what it lists.
    expect(authorize(key({ isAdmin: true, agents: [] }), 'agent.use', teamAgent)).toEqual(
      denied('agent_access_denied'),
    );
    const machine = { ...key({ userId: 'usr_admin', agents: ['agt_t'] }), userIsAdmin: true };
    expect(authorize(machine, 'agent.use', { ...teamAgent, space: removed })).toEqual(ALLOW);
    expect(authorize(machine, 'agent.use', { ...teamAgent, id: 'agt_other', space: removed })).toEqual(
      denied('agent_access_denied'),
    );
    // …and manages nothing an admin key would: managing needs editor, or an admin key.
    expect(authorize(machine, 'agent.manage', { agent: teamAgent, space: removed })).toEqual(
      denied('space_change_denied'),
    );
  });

  it('creating an Agent needs a key with access to all Agents', () => {
    expect(authorize(key(), 'agent.create', null)).toEqual(ALLOW);
    expect(authorize(key({ agents: ['agt_t'] }), 'agent.create', null)).toEqual(
      denied('agent_creation_denied'),
    );
    expect(authorize(key({ isAdmin: true, agents: [] }), 'agent.create', null)).toEqual(ALLOW);
  });

  it('Spaces: seen by their creator and through a reachable Agent, changed by their creator and admins', () => {
    expect(authorize(key(), 'space.read', { space: teamSpace, holdsReachableAgent: false })).toEqual(
      denied('space_not_visible'),
    );
    expect(authorize(key(), 'space.read', { space: teamSpace, holdsReachableAgent: true })).toEqual(ALLOW);
    expect(
      authorize(key({ keyId: 'key_owner' }), 'space.read', { space: teamSpace, holdsReachableAgent: false }),
    ).toEqual(ALLOW);
    expect(authorize(key(), 'space.change', teamSpace)).toEqual(denied('space_change_denied'));
    expect(authorize(key(), 'space.change', { id: 'spc_x', createdByApiKeyId: null })).toEqual(
      denied('space_change_denied'),
    );
    expect(authorize(key({ isAdmin: true }), 'space.change', teamSpace)).toEqual(ALLOW);
  });

  it("Knowledge: the Agent's and its Space's documents by its managers, Global by admins", () => {
    const at = (scope: 'agent' | 'space' | 'global') => ({ agent: teamAgent, space: memberSpace, scope });
    expect(authorize(key(), 'knowledge.write', at('agent'))).toEqual(denied('space_change_denied'));
    expect(
      authorize(key({ keyId: 'key_owner', userId: 'usr_owner' }), 'knowledge.write', at('agent')),
    ).toEqual(ALLOW);
    expect(authorize(key(), 'knowledge.write', at('space'))).toEqual(denied('space_change_denied'));
    expect(
      authorize(key({ keyId: 'key_owner', userId: 'usr_owner' }), 'knowledge.write', at('space')),
    ).toEqual(ALLOW);
    expect(
      authorize(key({ keyId: 'key_owner', userId: 'usr_owner' }), 'knowledge.write', at('global')),
    ).toEqual(denied('admin_required'));
    expect(authorize(key({ isAdmin: true }), 'knowledge.write', at('global'))).toEqual(ALLOW);
    expect(authorize(key({ agents: [] }), 'knowledge.write', at('agent'))).toEqual(
      denied('agent_access_denied'),
    );
  });

  it("shared memory is changed by the Agent's managers; Skills by their place's", () => {
    expect(authorize(key(), 'memory.shared.write', { agent: teamAgent, space: memberSpace })).toEqual(
      denied('shared_memory_change_denied'),
    );
    expect(
      authorize(key({ keyId: 'key_owner', userId: 'usr_owner' }), 'memory.shared.write', {
        agent: teamAgent,
        space: memberSpace,
      }),
    ).toEqual(ALLOW);
    expect(authorize(key(), 'skill.change', { kind: 'global' })).toEqual(denied('skill_change_denied'));
    expect(authorize(key(), 'skill.change', { kind: 'space', space: memberSpace })).toEqual(
      denied('space_change_denied'),
    );
    expect(
      authorize(key({ keyId: 'key_owner', userId: 'usr_owner' }), 'skill.change', {
        kind: 'agent',
        agent: teamAgent,
        space: memberSpace,
      }),
    ).toEqual(ALLOW);
    expect(authorize(key(), 'skill.read', { kind: 'global' })).toEqual(ALLOW);
    expect(authorize(key(), 'skill.read', { kind: 'space', space: teamSpace })).toEqual(
      denied('space_not_visible'),
    );
    expect(
      authorize(key(), 'skill.read', { kind: 'space', space: teamSpace, holdsReachableAgent: true }),
    ).toEqual(ALLOW);
    // An admin changes every place's Skills but those of another user's personal Agent, which it does not reach.
    const othersPersonal = { ...personal, ownerUserId: 'usr_2' };
    expect(
      authorize(key({ isAdmin: true }), 'skill.change', {
        kind: 'agent',
        agent: othersPersonal,
        space: null,
      }),
    ).toEqual(denied('agent_access_denied'));
  });

  it('instance-wide actions are for admins only', () => {
    for (const action of [
      'apiKey.manage',
      'user.list',
      'usage.read.all',
      'knowledgeIndex.manage',
      'skill.marketplace.curate',
    ] as const) {
      expect(authorize(key(), action, null)).toEqual(denied('admin_required'));
      expect(authorize(key({ isAdmin: true }), action, null)).toEqual(ALLOW);
    }
  });

  it('the principals to come: sessions, App tokens, embed visitors, the platform', () => {
    const session = { kind: 'session', userId: 'usr_1', isAdmin: false } as const;
    expect(authorize(session, 'agent.use', personal)).toEqual(ALLOW);
    expect(authorize(session, 'agent.use', teamAgent)).toEqual(ALLOW);
    expect(authorize(session, 'apiKey.manage', null)).toEqual(denied('admin_required'));

    const app = { kind: 'appToken', appId: 'app_1', allowlist: ['agt_t'] } as const;
    expect(authorize(app, 'agent.use', teamAgent)).toEqual(ALLOW);
    expect(authorize(app, 'agent.use', personal)).toEqual(denied('agent_access_denied'));
    // A global App's allowlist holds personal Agents too (Apps rule 3); the person of a session token narrows it.
    const global = { ...app, allowlist: ['agt_t', personal.id] };
    expect(authorize(global, 'agent.use', personal)).toEqual(ALLOW);
    expect(
      authorize(
        { ...global, user: { userId: personal.ownerUserId!, isAdmin: false } },
        'agent.use',
        personal,
      ),
    ).toEqual(ALLOW);
    expect(
      authorize({ ...global, user: { userId: 'usr_other', isAdmin: true } }, 'agent.use', personal),
    ).toEqual(denied('agent_access_denied'));
    expect(
      authorize({ ...global, user: { userId: 'usr_other', isAdmin: true } }, 'user.manage', null),
    ).toEqual(denied('admin_required'));
    expect(authorize(app, 'agent.manage', { agent: teamAgent, space: teamSpace })).toEqual(
      denied('space_change_denied'),
    );
    expect(authorize({ ...app, allowlist: 'standalone' }, 'agent.use', teamAgent)).toEqual(
      denied('agent_access_denied'),
    );
    expect(authorize(app, 'memory.read', teamAgent)).toEqual(denied('agent_access_denied'));

    const visitor = { kind: 'embedVisitor', agentId: 'agt_pub', visitorId: 'v_1' } as const;
    expect(authorize(visitor, 'agent.use', publicAgent)).toEqual(ALLOW);
    expect(authorize(visitor, 'agent.use', { ...publicAgent, isPublic: false })).toEqual(
      denied('agent_access_denied'),
    );
    expect(authorize(visitor, 'agent.use', { ...teamAgent, isPublic: true })).toEqual(
      denied('agent_access_denied'),
    );
    expect(authorize(visitor, 'space.create', null)).toEqual(denied('principal_not_supported'));
    expect(authorize(visitor, 'model.call', null)).toEqual(denied('principal_not_supported'));
    expect(authorize(visitor, 'mcp.connect', null)).toEqual(denied('principal_not_supported'));
    expect(authorize(key(), 'mcp.connect', null)).toEqual(ALLOW);
    expect(authorize({ kind: 'session', userId: 'usr_1', isAdmin: true }, 'mcp.connect', null)).toEqual(
      denied('principal_not_supported'),
    );

    const platform = { kind: 'platform', process: 'space-deletion' } as const;
    expect(authorize(platform, 'agent.manage', { agent: teamAgent, space: null })).toEqual(ALLOW);
  });

  it('a session token is exactly what its App may reach and what its person may do signed in', () => {
    const app = { kind: 'appToken', appId: 'app_1', allowlist: ['agt_t'] } as const;
    const as = (userId: string, isAdmin = false) => ({ ...app, user: { userId, isAdmin } });
    // usr_1 is a member of the Agent's Space; usr_2 has no role in it; an admin uses every shared Agent.
    expect(authorize(as('usr_1'), 'agent.use', teamAgent)).toEqual(ALLOW);
    expect(authorize(as('usr_2'), 'agent.use', teamAgent)).toEqual(denied('agent_access_denied'));
    expect(authorize(as('usr_9', true), 'agent.use', teamAgent)).toEqual(ALLOW);
    expect(authorize(as('usr_2'), 'knowledge.read', teamAgent)).toEqual(denied('agent_access_denied'));
    // Nor does the App's allowlist widen: an admin's token for an App not enabled for the Agent reaches nothing.
    expect(authorize({ ...as('usr_9', true), allowlist: [] }, 'agent.use', teamAgent)).toEqual(
      denied('agent_access_denied'),
    );
    const inSpace = { agent: teamAgent, space: memberSpace };
    // Tagging the Agent's Knowledge: the App alone may (the bridge's tag operations), a person only as its manager.
    expect(authorize(app, 'knowledge.tag', inSpace)).toEqual(ALLOW);
    expect(authorize(as('usr_1'), 'knowledge.tag', inSpace)).toEqual(denied('space_change_denied'));
    expect(authorize(as('usr_2'), 'knowledge.tag', inSpace)).toEqual(denied('agent_access_denied'));
    expect(authorize(as('usr_owner'), 'knowledge.tag', inSpace)).toEqual(ALLOW);
    expect(authorize(as('usr_1'), 'knowledge.write', { ...inSpace, scope: 'agent' })).toEqual(
      denied('space_change_denied'),
    );
  });

  it("writing an Agent's own Knowledge is managing it: a member who uses it reads, never writes", () => {
    const member = key({ userId: 'usr_1' });
    const owner = key({ keyId: 'key_x', userId: 'usr_owner' });
    const agentScope = { agent: teamAgent, space: memberSpace, scope: 'agent' } as const;
    expect(authorize(member, 'knowledge.read', teamAgent)).toEqual(ALLOW);
    expect(authorize(member, 'knowledge.write', agentScope)).toEqual(denied('space_change_denied'));
    expect(authorize(member, 'knowledge.tag', { agent: teamAgent, space: memberSpace })).toEqual(
      denied('space_change_denied'),
    );
    expect(authorize(owner, 'knowledge.write', agentScope)).toEqual(ALLOW);
    expect(authorize(owner, 'knowledge.tag', { agent: teamAgent, space: memberSpace })).toEqual(ALLOW);
    // One's personal Agent is one's own to fill.
    expect(authorize(member, 'knowledge.write', { agent: personal, space: null, scope: 'agent' })).toEqual(
      ALLOW,
    );
    expect(
      authorize(key({ userId: 'usr_2' }), 'knowledge.write', {
        agent: personal,
        space: null,
        scope: 'agent',
      }),
    ).toEqual(denied('agent_access_denied'));
  });

  it("lets the platform do what its process managers send, and nothing that is a user's own", () => {
    const platform = platformPrincipal('test-process');
    // The personal-agent process, the Space-deletion cascade, the Knowledge tag and owner cascades.
    expect(authorize(platform, 'agent.create', null)).toEqual(ALLOW);
    expect(authorize(platform, 'agent.manage', { agent: personal, space: null })).toEqual(ALLOW);
    expect(
      authorize(platform, 'knowledge.write', { agent: teamAgent, space: null, scope: 'global' }),
    ).toEqual(ALLOW);
    for (const action of ['user.self', 'apiKey.own', 'usage.read.own', 'memory.own.erase'] as const)
      expect(authorize(platform, action, null)).toEqual(denied('principal_not_supported'));
    expect(authorize(platform, 'memory.personal.write', teamAgent)).toEqual(denied('agent_access_denied'));
  });

  it('identities are linked from a signed-in session only: not by a key, an admin key, or the platform', () => {
    const session = { kind: 'session', userId: 'usr_1', isAdmin: false } as const;
    expect(authorize(session, 'identity.link', null)).toEqual(ALLOW);
    expect(authorize(key(), 'identity.link', null)).toEqual(denied('principal_not_supported'));
    expect(authorize(key({ isAdmin: true }), 'identity.link', null)).toEqual(
      denied('principal_not_supported'),
    );
    expect(authorize({ kind: 'platform', process: 'x' }, 'identity.link', null)).toEqual(
      denied('principal_not_supported'),
    );
  });

  it('has a rule for every action it lists, and no visitor or App token holds an admin right', () => {
    const visitor = { kind: 'embedVisitor', agentId: 'agt_pub', visitorId: 'v_1' } as const;
    const app = { kind: 'appToken', appId: 'app_1', allowlist: 'standalone' } as const;
    for (const action of ACTIONS) {
      const resource = {
        kind: 'global',
        id: 'x',
        isPersonal: false,
        ownerUserId: null,
        spaceId: null,
        space: teamSpace,
        agent: teamAgent,
        holdsReachableAgent: false,
        scope: 'global',
      };
      expect(authorize(key({ isAdmin: true }), action, resource as never)).toEqual(
        action === 'skill.read' || action === 'space.read' ? ALLOW : expect.anything(),
      );
      if (action === 'skill.read') continue;
      expect(authorize(visitor, action, resource as never).allow).toBe(false);
      // An App's own right (the bridge without an Agent) is its only one; it is no admin right.
      expect(authorize(app, action, resource as never).allow).toBe(action === 'app.standalone');
    }
  });

  it("an Agent's App views are seen by the people who use the Agent; never by an App or a visitor", () => {
    const session = { kind: 'session', userId: 'usr_1', isAdmin: false } as const;
    expect(authorize(session, 'app.view', teamAgent)).toEqual(ALLOW);
    expect(authorize(session, 'app.view', personal)).toEqual(ALLOW);
    expect(authorize({ ...session, userId: 'usr_2' }, 'app.view', personal)).toEqual(
      denied('agent_access_denied'),
    );
    expect(authorize(key({ agents: ['agt_t'] }), 'app.view', teamAgent)).toEqual(ALLOW);
    expect(authorize(key({ agents: [] }), 'app.view', teamAgent)).toEqual(denied('agent_access_denied'));
    const app = { kind: 'appToken', appId: 'app_1', allowlist: ['agt_pub'] } as const;
    expect(authorize(app, 'app.view', publicAgent)).toEqual(denied('principal_not_supported'));
    const visitor = { kind: 'embedVisitor', agentId: 'agt_pub', visitorId: 'v_1' } as const;
    expect(authorize(visitor, 'app.view', publicAgent)).toEqual(denied('principal_not_supported'));
  });

  it('provenance: admins see every answer that used a source; a user their own answers of an Agent they use', () => {
    const answer = { agent: teamAgent, userId: 'usr_1' };
    expect(authorize(key({ isAdmin: true, userId: 'usr_9' }), 'provenance.read', answer)).toEqual(ALLOW);
    expect(authorize(key({ isAdmin: true }), 'provenance.read', { agent: null, userId: 'usr_2' })).toEqual(
      ALLOW,
    );
    expect(authorize(key({ isAdmin: true }), 'provenance.read', null)).toEqual(ALLOW);
    expect(authorize(key({ isAdmin: true }), 'audit.replay', null)).toEqual(ALLOW);
    expect(authorize(key(), 'audit.replay', null)).toEqual(denied('admin_required'));
    expect(authorize(key(), 'provenance.read', null)).toEqual(denied('admin_required'));
    expect(authorize(key({ agents: ['agt_t'] }), 'provenance.read', answer)).toEqual(ALLOW);
    expect(authorize(key({ userId: 'usr_2' }), 'provenance.read', answer)).toEqual(
      denied('agent_access_denied'),
    );
    expect(authorize(key({ agents: [] }), 'provenance.read', answer)).toEqual(denied('agent_access_denied'));
    expect(authorize(key(), 'provenance.read', { agent: null, userId: 'usr_1' })).toEqual(
      denied('agent_access_denied'),
    );
  });

  describe('Space roles (issue 22)', () => {
    const space = {
      id: 'spc_r',
      createdByApiKeyId: null,
      createdByUserId: 'usr_o',
      members: { usr_o: 'owner', usr_e: 'editor', usr_m: 'member' } as const,
    };
    const agent = { id: 'agt_r', isPersonal: false, ownerUserId: null, spaceId: 'spc_r', space };
    const session = (userId: string, isAdmin = false): Principal => ({ kind: 'session', userId, isAdmin });
    const as = (userId: string) => key({ userId, keyId: `key_${userId}` });
    const change = (userId: string, currentRole: string | null, newRole: string | null) =>
      ({ space, userId, currentRole, newRole }) as Parameters<typeof authorize<'space.member.change'>>[2];

    it('owner, editor and member use the Agent; a non-member does not, with a session or a key granted all', () => {
      for (const user of ['usr_o', 'usr_e', 'usr_m']) {
        expect(authorize(session(user), 'agent.use', agent)).toEqual(ALLOW);
        expect(authorize(as(user), 'agent.use', agent)).toEqual(ALLOW);
      }
      expect(authorize(session('usr_x'), 'agent.use', agent)).toEqual(denied('agent_access_denied'));
      expect(authorize(as('usr_x'), 'agent.use', agent)).toEqual(denied('agent_access_denied'));
      expect(authorize(session('usr_x', true), 'agent.use', agent)).toEqual(ALLOW);
    });

    it('a key narrows its user: a member key granted other Agents does not use this one', () => {
      expect(authorize(key({ userId: 'usr_m', agents: ['agt_other'] }), 'agent.use', agent)).toEqual(
        denied('agent_access_denied'),
      );
    });

    it('using is not managing: editors and owners manage the Agent, members do not', () => {
      const resource = { agent, space };
      expect(authorize(session('usr_o'), 'agent.manage', resource)).toEqual(ALLOW);
      expect(authorize(as('usr_e'), 'agent.manage', resource)).toEqual(ALLOW);
      expect(authorize(as('usr_m'), 'agent.manage', resource)).toEqual(denied('space_change_denied'));
      expect(authorize(as('usr_m'), 'knowledge.write', { ...resource, scope: 'space' })).toEqual(
        denied('space_change_denied'),
      );
      expect(authorize(as('usr_m'), 'memory.shared.write', resource)).toEqual(
        denied('shared_memory_change_denied'),
      );
    });

    it('owners rename and delete the Space; editors change what is in it; members read it', () => {
      expect(authorize(as('usr_o'), 'space.change', space)).toEqual(ALLOW);
      expect(authorize(as('usr_e'), 'space.change', space)).toEqual(denied('space_change_denied'));
      expect(authorize(as('usr_e'), 'space.content.change', space)).toEqual(ALLOW);
      expect(authorize(as('usr_m'), 'space.content.change', space)).toEqual(denied('space_change_denied'));
      expect(authorize(as('usr_m'), 'space.read', { space, holdsReachableAgent: false })).toEqual(ALLOW);
      expect(authorize(as('usr_m'), 'space.members.read', space)).toEqual(ALLOW);
      expect(authorize(as('usr_x'), 'space.members.read', space)).toEqual(denied('space_not_visible'));
      expect(authorize(as('usr_m'), 'skill.change', { kind: 'space', space })).toEqual(
        denied('space_change_denied'),
      );
      expect(authorize(as('usr_e'), 'skill.change', { kind: 'space', space })).toEqual(ALLOW);
    });

    it('a creator is owner only while no members are recorded (removal ends it)', () => {
      const legacy = { id: 'spc_l', createdByApiKeyId: 'key_old', createdByUserId: null };
      expect(authorize(key({ keyId: 'key_old' }), 'space.change', legacy)).toEqual(ALLOW);
      const later = { ...legacy, members: { usr_o: 'owner' } as const };
      expect(authorize(key({ keyId: 'key_old' }), 'space.change', later)).toEqual(
        denied('space_change_denied'),
      );
      expect(
        authorize(key({ keyId: 'key_old' }), 'space.read', { space: later, holdsReachableAgent: false }),
      ).toEqual(denied('space_not_visible'));
    });

    it('a member removes nobody (Dify #16330); editors add and change members up to their own role', () => {
      expect(authorize(as('usr_m'), 'space.member.change', change('usr_e', 'editor', null))).toEqual(
        denied('space_member_change_denied'),
      );
      expect(authorize(as('usr_m'), 'space.member.change', change('usr_x', null, 'member'))).toEqual(
        denied('space_member_change_denied'),
      );
      expect(authorize(as('usr_e'), 'space.member.change', change('usr_x', null, 'editor'))).toEqual(ALLOW);
      expect(authorize(as('usr_e'), 'space.member.change', change('usr_m', 'member', null))).toEqual(ALLOW);
    });

    it('the directory of people to add (member-candidates): owners, editors and admins; members and outsiders none', () => {
      expect(authorize(session('usr_o'), 'space.member.candidates', space)).toEqual(ALLOW);
      expect(authorize(as('usr_e'), 'space.member.candidates', space)).toEqual(ALLOW);
      expect(authorize(session('usr_a', true), 'space.member.candidates', space)).toEqual(ALLOW);
      expect(authorize(session('usr_m'), 'space.member.candidates', space)).toEqual(
        denied('space_member_change_denied'),
      );
      expect(authorize(session('usr_x'), 'space.member.candidates', space)).toEqual(
        denied('space_member_change_denied'),
      );
      const personal = { ...space, members: {}, personalOf: 'usr_o' };
      expect(authorize(session('usr_o'), 'space.member.candidates', personal)).toEqual(
        denied('personal_space_unshareable'),
      );
    });

    it('nobody grants a role above their own, or touches a member above them', () => {
      expect(authorize(as('usr_e'), 'space.member.change', change('usr_x', null, 'owner'))).toEqual(
        denied('role_above_own'),
      );
      expect(authorize(as('usr_e'), 'space.member.change', change('usr_m', 'member', 'owner'))).toEqual(
        denied('role_above_own'),
      );
      expect(authorize(as('usr_e'), 'space.member.change', change('usr_o', 'owner', 'member'))).toEqual(
        denied('role_above_own'),
      );
      expect(authorize(as('usr_e'), 'space.member.change', change('usr_o', 'owner', null))).toEqual(
        denied('role_above_own'),
      );
      expect(authorize(as('usr_o'), 'space.member.change', change('usr_x', null, 'owner'))).toEqual(ALLOW);
    });

    it('nobody changes their own role, admins included; anyone leaves', () => {
      expect(authorize(as('usr_m'), 'space.member.change', change('usr_m', 'member', 'owner'))).toEqual(
        denied('own_role_change_denied'),
      );
      expect(authorize(as('usr_o'), 'space.member.change', change('usr_o', 'owner', 'editor'))).toEqual(
        denied('own_role_change_denied'),
      );
      expect(
        authorize(session('usr_o', true), 'space.member.change', change('usr_o', 'owner', 'member')),
      ).toEqual(denied('own_role_change_denied'));
      expect(authorize(as('usr_m'), 'space.member.change', change('usr_m', 'member', null))).toEqual(ALLOW);
      expect(
        authorize(session('usr_a', true), 'space.member.change', change('usr_x', null, 'owner')),
      ).toEqual(ALLOW);
    });
  });

  it('who may create shared Spaces: everyone until an admin restricts it; admins always (issue 22 §4)', () => {
    const session: Principal = { kind: 'session', userId: 'usr_1', isAdmin: false };
    expect(authorize(session, 'space.create', null)).toEqual(ALLOW);
    expect(authorize(key(), 'space.create', { creatorRoles: ['admin', 'member'] })).toEqual(ALLOW);
    expect(authorize(session, 'space.create', { creatorRoles: ['admin'] })).toEqual(
      denied('space_creation_restricted'),
    );
    expect(authorize(key(), 'space.create', { creatorRoles: [] })).toEqual(
      denied('space_creation_restricted'),
    );
    expect(authorize(key({ isAdmin: true }), 'space.create', { creatorRoles: [] })).toEqual(ALLOW);
    expect(authorize(key(), 'instance.settings.manage', null)).toEqual(denied('admin_required'));
  });

  it("a private personal Space is its user's alone: admins do not see it; it is never shared; it holds only the personal Agent", () => {
    const personalSpace = {
      id: 'spc_p',
      createdByApiKeyId: null,
      personalOf: 'usr_1',
      members: { usr_1: 'owner' } as const,
    };
    const session = (userId: string, isAdmin = false): Principal => ({ kind: 'session', userId, isAdmin });
    expect(
      authorize(session('usr_1'), 'space.read', { space: personalSpace, holdsReachableAgent: false }),
    ).toEqual(ALLOW);
    expect(
      authorize(session('usr_2', true), 'space.read', { space: personalSpace, holdsReachableAgent: false }),
    ).toEqual(denied('space_not_visible'));
    expect(authorize(key({ userId: 'usr_2', isAdmin: true }), 'space.members.read', personalSpace)).toEqual(
      denied('space_not_visible'),
    );
    expect(authorize(key({ userId: 'usr_2', isAdmin: true }), 'space.change', personalSpace)).toEqual(
      denied('space_change_denied'),
    );
    expect(
      authorize(session('usr_1'), 'space.member.change', {
        space: personalSpace,
        userId: 'usr_2',
        currentRole: null,
        newRole: 'member',
      }),
    ).toEqual(denied('personal_space_unshareable'));
    expect(authorize(session('usr_1'), 'space.content.change', personalSpace)).toEqual(
      denied('space_change_denied'),
    );
    expect(authorize({ kind: 'platform', process: 'p' }, 'space.content.change', personalSpace)).toEqual(
      ALLOW,
    );
  });
});

describe("one's own things", () => {
  it('are their person’s alone: not another user’s, not an admin’s, not an App’s; an embed visitor reaches its own', () => {
    const own = { ownerUserId: 'usr_1' };
    expect(authorize({ kind: 'session', userId: 'usr_1', isAdmin: false }, 'user.own', own)).toEqual(ALLOW);
    expect(authorize(key({ userId: 'usr_1' }), 'user.own', own)).toEqual(ALLOW);
    expect(authorize({ kind: 'session', userId: 'usr_2', isAdmin: true }, 'user.own', own)).toEqual(
      denied('not_own'),
    );
    expect(authorize(key({ userId: 'usr_2', isAdmin: true }), 'user.own', own)).toEqual(denied('not_own'));
    expect(authorize(platformPrincipal('x'), 'user.own', own)).toEqual(denied('not_own'));
    const visitor = { kind: 'embedVisitor', agentId: 'agt_pub', visitorId: 'vis_1' } as const;
    expect(authorize(visitor, 'user.own', { ownerUserId: 'vis_1' })).toEqual(ALLOW);
    expect(authorize(visitor, 'user.own', own)).toEqual(denied('not_own'));
    expect(authorize(key({ userId: 'usr_1' }), 'user.own', { ownerUserId: null })).toEqual(denied('not_own'));
  });
});

describe('the scope of agent.use a list narrows by', () => {
  it('is the grants a key names, every Space for an admin user, the role Spaces for anyone else', () => {
    expect(agentUseScope(key({ agents: ['agt_a'] }))).toEqual({ grantedIds: ['agt_a'], anySpace: false });
    expect(agentUseScope(key({ isAdmin: true }))).toEqual({ grantedIds: null, anySpace: true });
    expect(agentUseScope({ ...key(), userIsAdmin: true })).toEqual({ grantedIds: null, anySpace: true });
    expect(agentUseScope({ kind: 'session', userId: 'usr_1', isAdmin: false })).toEqual({
      grantedIds: null,
      anySpace: false,
    });
    expect(agentUseScope({ kind: 'appToken', appId: 'app_1', allowlist: 'standalone' })).toEqual({
      grantedIds: [],
      anySpace: true,
    });
  });
});
