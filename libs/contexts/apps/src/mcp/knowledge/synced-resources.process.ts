// Process manager: the resources each App's synced documents come from, one document per synced document (its App and
// URI), kept from the log — a document added with the provider `app:<appId>` files its resource, its deletion or the
// App's takes it out. The resource watcher (mcp-resource-watcher.ts) reads it to know which servers to hold a
// connection to and what to subscribe to there; it writes nothing and sends no command itself.
import { Injectable } from '@nestjs/common';
import { defineProcess, type EventHandlers, type ProjectionContext } from '#eventsourcing';
import type { DocumentEvent } from '#knowledge';
import type { Page, WriteOp } from '#read-store';
import type { AppEvent } from '../../app.events.js';

type Read = Extract<DocumentEvent | AppEvent, { type: 'DocumentAdded' | 'DocumentDeleted' | 'AppDeleted' }>;

export const SYNCED_RESOURCES_PROCESS = 'mcp-synced-resources-process';
export const SYNCED_RESOURCES = 'mcp_synced_resources';
const PAGE = 500;

/** One synced document: its id, the App it is synced from and the resource's URI there. */
export interface SyncedResource {
  readonly id: string;
  readonly appId: string;
  readonly uri: string;
}

const APP_PROVIDER = /^app:(.+)$/;

@Injectable()
export class SyncedResourcesProcess extends defineProcess<Read>({
  name: SYNCED_RESOURCES_PROCESS,
  version: 1,
  collections: [{ name: SYNCED_RESOURCES, indexes: [{ fields: ['appId'] }] }],
}) {
  readonly on: EventHandlers<Read> = {
    DocumentAdded: ({ data }) => {
      const appId = APP_PROVIDER.exec(data.provider)?.[1];
      if (!appId || !data.sourceUri) return [];
      const doc: SyncedResource = { id: data.documentId, appId, uri: data.sourceUri };
      return [{ kind: 'upsert', collection: SYNCED_RESOURCES, doc: { ...doc } }];
    },
    DocumentDeleted: async ({ data }, context) =>
      (await context.get(SYNCED_RESOURCES, data.documentId))
        ? [{ kind: 'delete', collection: SYNCED_RESOURCES, id: data.documentId }]
        : [],
    AppDeleted: ({ data }, context) => this.appDeleted(data.appId, context),
  };

  private async appDeleted(appId: string, context: ProjectionContext): Promise<WriteOp[]> {
    const ops: WriteOp[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<SyncedResource> = await context.find<SyncedResource>(
        SYNCED_RESOURCES,
        { appId },
        { limit: PAGE, cursor },
      );
      for (const held of page.data) ops.push({ kind: 'delete', collection: SYNCED_RESOURCES, id: held.id });
      cursor = page.nextCursor;
    } while (cursor);
    return ops;
  }
}
