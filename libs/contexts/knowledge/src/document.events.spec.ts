// Stored events as they sit in the log: the JSON of a DocumentAdded must keep folding into the same state, whatever
// the commands that write new ones look like today (projections/knowledge checks its projection).
import { evolveDocument, initialDocumentState, type DocumentEvent } from './document.events.js';

const STORED_DOCUMENT_ADDED = `{
  "type": "DocumentAdded",
  "data": {
    "documentId": "doc_01",
    "name": "Guide.md",
    "scope": "agent",
    "ownerId": "agt_01",
    "provider": "upload",
    "content": {
      "blobId": "sha256-${'a'.repeat(64)}",
      "contentHash": "sha256-${'a'.repeat(64)}",
      "sizeBytes": 42,
      "declaredType": "text/markdown"
    },
    "tagIds": ["tag_01"]
  }
}`;

describe('DocumentAdded as stored', () => {
  const event = JSON.parse(STORED_DOCUMENT_ADDED) as DocumentEvent;

  it('folds into a Pending document of version 1 with its content and tags', () => {
    expect(evolveDocument(initialDocumentState(), event)).toMatchObject({
      status: 'Pending',
      name: 'Guide.md',
      version: 1,
      tagIds: ['tag_01'],
      content: { contentHash: `sha256-${'a'.repeat(64)}`, sizeBytes: 42 },
    });
  });
});
