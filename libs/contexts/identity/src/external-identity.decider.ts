// The linked identity's commands and the pure decision over each: linked to one user only, unlinked by that user.
import { ConflictError, NotFoundError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveExternalIdentity,
  identityIdOf,
  initialExternalIdentityState,
  type ExternalIdentityEvent,
  type ExternalIdentityState,
  type IdentityLinkVia,
} from './external-identity.events.js';
import type { ChangeSource } from './user.events.js';

export type ExternalIdentityCommand =
  | {
      readonly type: 'LinkIdentity';
      readonly providerId: string;
      readonly subject: string;
      readonly userId: string;
      readonly email: string | null;
      readonly via: IdentityLinkVia;
      readonly source: ChangeSource;
    }
  | {
      readonly type: 'UnlinkIdentity';
      readonly providerId: string;
      readonly subject: string;
      readonly userId: string;
      readonly source: ChangeSource;
    };

type ExternalIdentityOf<Type extends ExternalIdentityCommand['type']> = Extract<
  ExternalIdentityCommand,
  { readonly type: Type }
>;

function linkIdentity(
  command: ExternalIdentityOf<'LinkIdentity'>,
  state: ExternalIdentityState,
): ExternalIdentityEvent[] {
  if (state.status === 'linked') {
    if (state.userId === command.userId) return [];
    throw new ConflictError(
      'identity_linked_elsewhere',
      'this identity of the provider is linked to another user',
    );
  }
  const { type: _type, ...data } = command;
  return [
    {
      type: 'IdentityLinked',
      data: { identityId: identityIdOf(command.providerId, command.subject), ...data },
    },
  ];
}

function unlinkIdentity(
  { providerId, subject, userId, source }: ExternalIdentityOf<'UnlinkIdentity'>,
  state: ExternalIdentityState,
): ExternalIdentityEvent[] {
  if (state.status !== 'linked' || state.userId !== userId) throw new NotFoundError('Identity', providerId);
  return [
    {
      type: 'IdentityUnlinked',
      data: { identityId: identityIdOf(providerId, subject), providerId, userId, source },
    },
  ];
}

export const externalIdentityDecider: Decider<
  ExternalIdentityState,
  ExternalIdentityCommand,
  ExternalIdentityEvent
> = {
  initialState: initialExternalIdentityState,
  evolve: evolveExternalIdentity,
  decide: decideByType<ExternalIdentityState, ExternalIdentityCommand, ExternalIdentityEvent>({
    LinkIdentity: linkIdentity,
    UnlinkIdentity: unlinkIdentity,
  }),
};
