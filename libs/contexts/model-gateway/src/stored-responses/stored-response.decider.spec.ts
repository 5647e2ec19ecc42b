import { deciderSpec } from '#testing/decider-spec';
import type { StoredResponseEvent } from './stored-response.events.js';
import { storedResponseDecider, type StoredResponseCommand } from './stored-response.decider.js';

const given = deciderSpec(storedResponseDecider);
const data = {
  responseId: 'resp_1',
  userId: 'usr_1',
  apiKeyId: 'key_1',
  model: 'offline-chat',
  previousResponseId: null,
  input: 'sealed:v1:input',
  response: 'sealed:v1:response',
  expiresAt: '2026-12-26T00:00:00.000Z',
};
const store: StoredResponseCommand = { type: 'StoreResponse', ...data };
const stored: StoredResponseEvent = { type: 'ResponseStored', data };
const remove = (reason: 'deleted' | 'expired'): StoredResponseCommand => ({
  type: 'DeleteResponse',
  responseId: 'resp_1',
  reason,
});
const deleted = (reason: 'deleted' | 'expired'): StoredResponseEvent => ({
  type: 'ResponseDeleted',
  data: { responseId: 'resp_1', userId: 'usr_1', reason },
});

describe('a stored response (decider)', () => {
  it('is stored once: storing the same id again records nothing', () => {
    given().when(store).then([stored]);
    given(stored).when(store).then([]);
    given(stored, deleted('deleted')).when(store).then([]);
  });

  it('is deleted once, by its owner or by its expiry, and only while stored', () => {
    given(stored)
      .when(remove('deleted'))
      .then([deleted('deleted')]);
    given(stored)
      .when(remove('expired'))
      .then([deleted('expired')]);
    given(stored, deleted('expired')).when(remove('deleted')).then([]);
    given().when(remove('deleted')).then([]);
  });
});
