// Builds the Apps read model (libs/contexts/apps/src/apps.read-model.ts): one document per live App.
import { defineProjector, type EnvelopeOf } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import { APPS, APPS_READ_MODEL, standaloneKey, type AppEvent } from '#apps';

const patch = (event: EnvelopeOf<AppEvent>, set: Record<string, unknown>): WriteOp[] => [
  {
    kind: 'patch',
    collection: APPS,
    id: event.data.appId,
    set: { ...set, updatedAt: event.metadata.occurredAt },
  },
];

export const appsProjector = defineProjector<AppEvent>({
  name: APPS_READ_MODEL.projection,
  version: 2,
  collections: [APPS_READ_MODEL],
  on: {
    AppRegistered: (event) => [
      {
        kind: 'upsert',
        collection: APPS,
        doc: {
          id: event.data.appId,
          name: event.data.name,
          source: event.data.source,
          enablement: event.data.enablement,
          tokenHash: event.data.tokenHash,
          meta: null,
          standaloneId: null,
          lastError: null,
          mcp: null,
          upstreamUrl: event.data.source.type === 'url' ? event.data.source.url : null,
          createdAt: event.metadata.occurredAt,
          updatedAt: event.metadata.occurredAt,
        },
      },
    ],
    AppRenamed: (event) => patch(event, { name: event.data.name }),
    AppEnablementChanged: (event) => patch(event, { enablement: event.data.enablement }),
    AppTokenRotated: (event) => patch(event, { tokenHash: event.data.tokenHash }),
    AppMetaRead: (event) =>
      patch(event, { meta: event.data.meta, standaloneId: standaloneKey(event.data.meta), lastError: null }),
    AppMetaReadFailed: (event) => patch(event, { lastError: event.data.error }),
    AppContainerStarted: (event) => patch(event, { upstreamUrl: event.data.upstreamUrl, lastError: null }),
    AppContainerFailed: (event) => patch(event, { lastError: event.data.error }),
    AppMcpServerRead: (event) => patch(event, { mcp: event.data.offer, lastError: null }),
    AppDeleted: (event) => [{ kind: 'delete', collection: APPS, id: event.data.appId }],
  },
});
