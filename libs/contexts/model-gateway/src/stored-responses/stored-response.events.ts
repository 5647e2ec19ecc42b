// A stored Responses answer (`store: true`, the default): its stream `response-<responseId>` holds who it belongs to
// (the key's person), when it expires, and, sealed with its own data key (filed under the person), the input it was
// answered from (the earlier responses' items it continued, then its own input) and the `response` object. Deleting
// it, or its expiry, destroys the key: the words are gone from every file, the fact that it existed stays.
import type { DomainEvent } from '#kernel';

/** Text sealed with the response's data key (ContentCipher). */
type Sealed = string;

export type StoredResponseEvent =
  | DomainEvent<
      'ResponseStored',
      {
        readonly responseId: string;
        readonly userId: string;
        /** The key it was made with (usage is that key's). */
        readonly apiKeyId: string;
        readonly model: string;
        readonly previousResponseId: string | null;
        /** The input items it was answered from, as JSON. */
        readonly input: Sealed;
        /** The `response` object, as JSON. */
        readonly response: Sealed;
        readonly expiresAt: string;
      }
    >
  | DomainEvent<
      'ResponseDeleted',
      { readonly responseId: string; readonly userId: string; readonly reason: 'deleted' | 'expired' }
    >;

export interface StoredResponseState {
  readonly status: 'none' | 'stored' | 'deleted';
  readonly stored: Extract<StoredResponseEvent, { type: 'ResponseStored' }>['data'] | null;
}

export const storedResponseStreamId = (responseId: string): string => `response-${responseId}`;

/** The data keys of a person's stored responses are filed under this group. */
export const storedResponsesKeyGroup = (userId: string): string => `responses-${userId}`;

export const initialStoredResponseState = (): StoredResponseState => ({ status: 'none', stored: null });

export function evolveStoredResponse(
  _state: StoredResponseState,
  event: StoredResponseEvent,
): StoredResponseState {
  switch (event.type) {
    case 'ResponseStored':
      return { status: 'stored', stored: event.data };
    case 'ResponseDeleted':
      return { status: 'deleted', stored: null };
  }
}
