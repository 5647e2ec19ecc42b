// The decisions over a stored response: stored once (a second store of the same id records nothing), deleted once
// and only while stored, by its owner or by its expiry.
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolveStoredResponse,
  initialStoredResponseState,
  type StoredResponseEvent,
  type StoredResponseState,
} from './stored-response.events.js';

export type StoredResponseCommand =
  | ({ readonly type: 'StoreResponse' } & Extract<StoredResponseEvent, { type: 'ResponseStored' }>['data'])
  | {
      readonly type: 'DeleteResponse';
      readonly responseId: string;
      readonly reason: 'deleted' | 'expired';
    };

type Of<Type extends StoredResponseCommand['type']> = Extract<StoredResponseCommand, { readonly type: Type }>;

function storeResponse(command: Of<'StoreResponse'>, state: StoredResponseState): StoredResponseEvent[] {
  if (state.status !== 'none') return [];
  const { type: _type, ...data } = command;
  return [{ type: 'ResponseStored', data }];
}

function deleteResponse(command: Of<'DeleteResponse'>, state: StoredResponseState): StoredResponseEvent[] {
  if (state.status !== 'stored' || !state.stored) return [];
  return [
    {
      type: 'ResponseDeleted',
      data: { responseId: command.responseId, userId: state.stored.userId, reason: command.reason },
    },
  ];
}

export const storedResponseDecider: Decider<StoredResponseState, StoredResponseCommand, StoredResponseEvent> =
  {
    initialState: initialStoredResponseState,
    evolve: evolveStoredResponse,
    decide: decideByType<StoredResponseState, StoredResponseCommand, StoredResponseEvent>({
      StoreResponse: storeResponse,
      DeleteResponse: deleteResponse,
    }),
  };
