// Builds the list of stored responses (libs/contexts/model-gateway/src/stored-responses/stored-responses.read-model.ts):
// one document per response while it exists, its owner and expiry; deleting or expiring it removes the document.
import { defineProjector } from '#eventsourcing';
import { STORED_RESPONSES, STORED_RESPONSES_READ_MODEL, type StoredResponseEvent } from '#model-gateway';

export const storedResponsesProjector = defineProjector<StoredResponseEvent>({
  name: STORED_RESPONSES_READ_MODEL.projection,
  version: 1,
  collections: [STORED_RESPONSES_READ_MODEL],
  on: {
    ResponseStored: ({ data }) => [
      {
        kind: 'upsert',
        collection: STORED_RESPONSES,
        doc: { id: data.responseId, userId: data.userId, expiresAt: data.expiresAt },
      },
    ],
    ResponseDeleted: ({ data }) => [{ kind: 'delete', collection: STORED_RESPONSES, id: data.responseId }],
  },
});
