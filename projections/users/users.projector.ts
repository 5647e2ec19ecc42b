// Builds the users and invitations read models (libs/contexts/identity/src/users.read-model.ts, invitations.read-model.ts).
// The password hash stays in the log: the read model says only whether there is one.
import { defineProjector } from '#eventsourcing';
import type { ExternalIdentityEvent, InvitationEvent, SessionEvent, UserEvent } from '#identity';
import {
  IDENTITIES,
  IDENTITIES_READ_MODEL,
  INVITATIONS,
  INVITATIONS_READ_MODEL,
  SESSIONS,
  SESSIONS_READ_MODEL,
  USERS,
  USERS_READ_MODEL,
} from '#identity';

export const usersProjector = defineProjector<
  UserEvent | InvitationEvent | SessionEvent | ExternalIdentityEvent
>({
  name: USERS_READ_MODEL.projection,
  version: 4,
  collections: [USERS_READ_MODEL, INVITATIONS_READ_MODEL, SESSIONS_READ_MODEL, IDENTITIES_READ_MODEL],
  on: {
    UserRegistered: ({ data, metadata: { occurredAt: at } }) => [
      {
        kind: 'upsert',
        collection: USERS,
        doc: {
          id: data.userId,
          email: data.email,
          name: data.name,
          role: data.role,
          status: 'active',
          language: data.language ?? 'en',
          hasPassword: false,
          usageWindowStart: at,
          sessionsNotBefore: null,
          createdAt: at,
          updatedAt: at,
        },
      },
    ],
    UserRoleChanged: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: USERS,
        id: data.userId,
        set: { role: data.role, updatedAt: metadata.occurredAt },
      },
    ],
    UserDeactivated: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: USERS,
        id: data.userId,
        set: {
          status: 'deactivated',
          sessionsNotBefore: metadata.occurredAt,
          updatedAt: metadata.occurredAt,
        },
      },
    ],
    UserReactivated: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: USERS,
        id: data.userId,
        set: { status: 'active', updatedAt: metadata.occurredAt },
      },
    ],
    UserPasswordSet: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: USERS,
        id: data.userId,
        set: { hasPassword: true, updatedAt: metadata.occurredAt },
      },
    ],
    UserPasswordResetIssued: () => [],
    UserSignedOutEverywhere: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: USERS,
        id: data.userId,
        set: { sessionsNotBefore: metadata.occurredAt, updatedAt: metadata.occurredAt },
      },
    ],
    SessionStarted: ({ data, metadata: { occurredAt: at } }) => [
      {
        kind: 'upsert',
        collection: SESSIONS,
        doc: {
          id: data.sessionId,
          userId: data.userId,
          method: data.method,
          userAgent: data.source.userAgent,
          expiresAt: data.expiresAt,
          lastSeenAt: at,
          revoked: false,
          createdAt: at,
        },
      },
    ],
    SessionRefreshed: ({ data, metadata }) => [
      { kind: 'patch', collection: SESSIONS, id: data.sessionId, set: { lastSeenAt: metadata.occurredAt } },
    ],
    SessionRevoked: ({ data }) => [
      { kind: 'patch', collection: SESSIONS, id: data.sessionId, set: { revoked: true } },
    ],
    UserLanguageChanged: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: USERS,
        id: data.userId,
        set: { language: data.language, updatedAt: metadata.occurredAt },
      },
    ],
    UserRenamed: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: USERS,
        id: data.userId,
        set: { name: data.name, updatedAt: metadata.occurredAt },
      },
    ],
    IdentityLinked: ({ data, metadata: { occurredAt: at } }) => [
      {
        kind: 'upsert',
        collection: IDENTITIES,
        doc: {
          id: data.identityId,
          providerId: data.providerId,
          subject: data.subject,
          userId: data.userId,
          email: data.email,
          via: data.via,
          createdAt: at,
        },
      },
    ],
    IdentityUnlinked: ({ data }) => [{ kind: 'delete', collection: IDENTITIES, id: data.identityId }],
    InvitationIssued: ({ data, metadata: { occurredAt: at } }) => [
      {
        kind: 'upsert',
        collection: INVITATIONS,
        doc: {
          id: data.invitationId,
          email: data.email,
          role: data.role,
          status: 'pending',
          expiresAt: data.expiresAt,
          invitedByUserId: data.invitedByUserId,
          userId: null,
          createdAt: at,
          updatedAt: at,
        },
      },
    ],
    InvitationAccepted: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: INVITATIONS,
        id: data.invitationId,
        set: { status: 'accepted', userId: data.userId, updatedAt: metadata.occurredAt },
      },
    ],
    InvitationRevoked: ({ data, metadata }) => [
      {
        kind: 'patch',
        collection: INVITATIONS,
        id: data.invitationId,
        set: { status: 'revoked', updatedAt: metadata.occurredAt },
      },
    ],
  },
});
