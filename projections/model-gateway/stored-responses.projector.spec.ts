import { projectionHarness } from '#testing/projection-harness';
import { STORED_RESPONSES } from '#model-gateway';
import { storedResponsesProjector } from './stored-responses.projector.js';

const stored = {
  responseId: 'resp_1',
  userId: 'usr_1',
  apiKeyId: 'key_1',
  model: 'offline-chat',
  previousResponseId: null,
  input: 'sealed:v1:x',
  response: 'sealed:v1:y',
  expiresAt: '2026-12-01T00:00:00.000Z',
};

describe('stored responses projection', () => {
  it('lists a stored response with its owner and expiry, none of its words, until it is deleted', async () => {
    const h = await projectionHarness(storedResponsesProjector);
    await h.apply(h.envelope({ type: 'ResponseStored', data: stored }));
    expect(await h.get(STORED_RESPONSES, 'resp_1')).toEqual({
      id: 'resp_1',
      userId: 'usr_1',
      expiresAt: '2026-12-01T00:00:00.000Z',
    });
    const deleted = h.envelope({
      type: 'ResponseDeleted',
      data: { responseId: 'resp_1', userId: 'usr_1', reason: 'expired' },
    });
    await h.apply(deleted);
    await h.apply(deleted);
    expect(await h.get(STORED_RESPONSES, 'resp_1')).toBeNull();
  });
});
