import { deciderSpec } from '#testing/decider-spec';
import { type UserEvent } from './user.events.js';
import { userDecider } from './user.decider.js';

const given = deciderSpec(userDecider);
const source = { address: '127.0.0.1', userAgent: 'jest' };
const registered = (role: 'admin' | 'member'): UserEvent => ({
  type: 'UserRegistered',
  data: { userId: 'u1', email: 'ada@example.com', name: 'Ada', role },
});

describe('user decider (lifecycle)', () => {
  it('nobody changes their own role, not even an administrator', () =>
    given(registered('member'))
      .when({
        type: 'ChangeUserRole',
        userId: 'u1',
        role: 'admin',
        byUserId: 'u1',
        otherActiveAdmins: 3,
        source,
      })
      .thenThrows('own_role_unchangeable'));

  it('an administrator changes another user role', () =>
    given(registered('member'))
      .when({
        type: 'ChangeUserRole',
        userId: 'u1',
        role: 'admin',
        byUserId: 'u2',
        otherActiveAdmins: 1,
        source,
      })
      .then([{ type: 'UserRoleChanged', data: { userId: 'u1', role: 'admin', source } }]));

  it('the last active administrator is neither demoted nor deactivated', () => {
    given(registered('admin'))
      .when({
        type: 'ChangeUserRole',
        userId: 'u1',
        role: 'member',
        byUserId: 'u2',
        otherActiveAdmins: 0,
        source,
      })
      .thenThrows('last_admin');
    given(registered('admin'))
      .when({ type: 'DeactivateUser', userId: 'u1', byUserId: 'u2', otherActiveAdmins: 0, source })
      .thenThrows('last_admin');
  });

  it('deactivates and reactivates, each once', () => {
    const deactivated: UserEvent = { type: 'UserDeactivated', data: { userId: 'u1', source } };
    given(registered('member'))
      .when({ type: 'DeactivateUser', userId: 'u1', byUserId: 'u2', otherActiveAdmins: 0, source })
      .then([deactivated]);
    given(registered('member'), deactivated)
      .when({ type: 'DeactivateUser', userId: 'u1', byUserId: 'u2', otherActiveAdmins: 0, source })
      .then([]);
    given(registered('member'), deactivated)
      .when({ type: 'ReactivateUser', userId: 'u1', source })
      .then([{ type: 'UserReactivated', data: { userId: 'u1', source } }]);
  });

  it('a deactivated user gets no password; an unknown one is 404', () => {
    given(registered('member'), { type: 'UserDeactivated', data: { userId: 'u1', source } })
      .when({ type: 'SetPassword', userId: 'u1', passwordHash: '$argon2id$x', reason: 'change', source })
      .thenThrows('user_deactivated');
    given().when({ type: 'ReactivateUser', userId: 'u1', source }).thenThrows('user_not_found');
  });

  it('a password reset link works once, before it expires', () => {
    const issued: UserEvent = {
      type: 'UserPasswordResetIssued',
      data: { userId: 'u1', tokenHash: 'h1', expiresAt: '2030-01-02T00:00:00.000Z', source },
    };
    const reset = {
      type: 'SetPassword' as const,
      userId: 'u1',
      passwordHash: '$argon2id$new',
      reason: 'reset' as const,
      reset: { tokenHash: 'h1', now: '2030-01-01T00:00:00.000Z' },
      source,
    };
    const set: UserEvent = {
      type: 'UserPasswordSet',
      data: { userId: 'u1', passwordHash: '$argon2id$new', reason: 'reset', source },
    };
    const ended: UserEvent = {
      type: 'UserSignedOutEverywhere',
      data: { userId: 'u1', reason: 'passwordReset', source },
    };
    given(registered('member'), issued).when(reset).then([set, ended]);
    given(registered('member'), issued, set).when(reset).thenThrows('invalid_reset_link');
    given(registered('member'), issued)
      .when({ ...reset, reset: { tokenHash: 'h2', now: reset.reset.now } })
      .thenThrows('invalid_reset_link');
    given(registered('member'), issued)
      .when({ ...reset, reset: { tokenHash: 'h1', now: '2030-01-02T00:00:00.000Z' } })
      .thenThrows('reset_link_expired');
    given(registered('member')).when(reset).thenThrows('invalid_reset_link');
  });

  it('a password reset, issuing one and a demotion end every session of the person; a promotion does not', () => {
    const endedBecause = (reason: 'passwordResetIssued' | 'demoted'): UserEvent => ({
      type: 'UserSignedOutEverywhere',
      data: { userId: 'u1', reason, source },
    });
    given(registered('member'))
      .when({
        type: 'IssuePasswordReset',
        userId: 'u1',
        tokenHash: 'h1',
        expiresAt: '2030-01-02T00:00:00.000Z',
        source,
      })
      .then([
        {
          type: 'UserPasswordResetIssued',
          data: { userId: 'u1', tokenHash: 'h1', expiresAt: '2030-01-02T00:00:00.000Z', source },
        },
        endedBecause('passwordResetIssued'),
      ]);
    const demotion = {
      type: 'ChangeUserRole' as const,
      userId: 'u1',
      byUserId: 'u2',
      otherActiveAdmins: 1,
      source,
    };
    given(registered('admin'))
      .when({ ...demotion, role: 'member' })
      .then([
        { type: 'UserRoleChanged', data: { userId: 'u1', role: 'member', source } },
        endedBecause('demoted'),
      ]);
    given(registered('member'))
      .when({ ...demotion, role: 'admin' })
      .then([{ type: 'UserRoleChanged', data: { userId: 'u1', role: 'admin', source } }]);
    given(registered('member'))
      .when({ type: 'SetPassword', userId: 'u1', passwordHash: '$argon2id$x', reason: 'change', source })
      .then([
        {
          type: 'UserPasswordSet',
          data: { userId: 'u1', passwordHash: '$argon2id$x', reason: 'change', source },
        },
      ]);
  });
});

describe('user decider (name)', () => {
  it('renames with the name trimmed, and not again to the same name', () => {
    const renamed: UserEvent = { type: 'UserRenamed', data: { userId: 'u1', name: 'Ada L.', source } };
    given(registered('member'))
      .when({ type: 'RenameUser', userId: 'u1', name: '  Ada L. ', source })
      .then([renamed]);
    given(registered('member'), renamed)
      .when({ type: 'RenameUser', userId: 'u1', name: 'Ada L.', source })
      .then([]);
    given(registered('member')).when({ type: 'RenameUser', userId: 'u1', name: 'Ada', source }).then([]);
  });

  it('refuses an empty name', () =>
    given(registered('member'))
      .when({ type: 'RenameUser', userId: 'u1', name: '   ', source })
      .thenThrows('invalid_name'));
});
