// An identity at an OpenID provider (its `sub`) linked to a user. One stream per provider and subject, so that the
// decider is the one place refusing an identity already linked to another user (two racing links: one wins, the other
// meets the stream's revision). Links are made at a first single sign-on (by the invitation's verified email), for a
// just-in-time account, or from the user's own session (the only way for a `social` provider); never by email alone to
// an existing user.
import { createHash } from 'node:crypto';
import type { DomainEvent } from '#kernel';
import type { ChangeSource } from './user.events.js';

export type IdentityLinkVia = 'invitation' | 'justInTime' | 'session';

export type ExternalIdentityEvent =
  | DomainEvent<
      'IdentityLinked',
      {
        readonly identityId: string;
        readonly providerId: string;
        readonly subject: string;
        readonly userId: string;
        /** The provider's email for the identity when it was linked (verified or not), if it sent one. */
        readonly email: string | null;
        readonly via: IdentityLinkVia;
        readonly source: ChangeSource;
      }
    >
  | DomainEvent<
      'IdentityUnlinked',
      {
        readonly identityId: string;
        readonly providerId: string;
        readonly userId: string;
        readonly source: ChangeSource;
      }
    >;

export type ExternalIdentityState =
  { readonly status: 'unlinked' } | { readonly status: 'linked'; readonly userId: string };

/** The identity's id: `idn_` + SHA-256 of provider and subject (the read model's key and the stream's name). */
export const identityIdOf = (providerId: string, subject: string): string =>
  `idn_${createHash('sha256').update(`${providerId}\n${subject}`).digest('hex').slice(0, 40)}`;

export const identityStreamId = (identityId: string): string => `identity-${identityId}`;

export const initialExternalIdentityState = (): ExternalIdentityState => ({ status: 'unlinked' });

export const evolveExternalIdentity = (
  _state: ExternalIdentityState,
  event: ExternalIdentityEvent,
): ExternalIdentityState =>
  event.type === 'IdentityLinked' ? { status: 'linked', userId: event.data.userId } : { status: 'unlinked' };
