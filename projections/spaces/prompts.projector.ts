// Builds the prompt library's read models (libs/contexts/spaces/src/prompts/prompt.ts): each prompt's current version, and
// every version. A Space's deletion removes its prompts and their versions (idempotent: a replay deletes what is
// not there). Version 2: the deletion (a rebuild drops the prompts of Spaces deleted before it).
import { defineProjector, type ProjectionContext } from '#eventsourcing';
import type { WriteOp } from '#read-store';
import type { PromptEvent, PromptView, SpaceEvent } from '#spaces';
import { PROMPT_VERSIONS, PROMPT_VERSIONS_READ_MODEL, PROMPTS, PROMPTS_READ_MODEL } from '#spaces';

/** A page of this size is read at a time. */
const PAGE = 500;

/** Deletes every document of the collection that belongs to the Space. */
async function deleteOfSpace(
  context: ProjectionContext,
  collection: string,
  spaceId: string,
): Promise<WriteOp[]> {
  const ops: WriteOp[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: { id: string }[]; nextCursor: string | null } = await context.find(
      collection,
      { spaceId },
      { limit: PAGE, cursor },
    );
    for (const { id } of page.data) ops.push({ kind: 'delete', collection, id });
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ops;
}

export const promptsProjector = defineProjector<PromptEvent | Extract<SpaceEvent, { type: 'SpaceDeleted' }>>({
  name: PROMPTS_READ_MODEL.projection,
  version: 2,
  collections: [PROMPTS_READ_MODEL, PROMPT_VERSIONS_READ_MODEL],
  on: {
    PromptCreated: ({ data: { promptId, ...fields }, metadata: { occurredAt: at } }) => [
      {
        kind: 'upsert',
        collection: PROMPTS,
        doc: { id: promptId, ...fields, version: 1, createdAt: at, updatedAt: at },
      },
      {
        kind: 'upsert',
        collection: PROMPT_VERSIONS,
        doc: { id: `${promptId}:1`, promptId, ...fields, version: 1, createdAt: at },
      },
    ],
    PromptRevised: async ({ data: { promptId, ...fields }, metadata: { occurredAt: at } }, context) => {
      const current = await context.get<PromptView>(PROMPTS, promptId);
      if (!current) return [];
      return [
        { kind: 'patch', collection: PROMPTS, id: promptId, set: { ...fields, updatedAt: at } },
        {
          kind: 'upsert',
          collection: PROMPT_VERSIONS,
          doc: {
            id: `${promptId}:${fields.version}`,
            promptId,
            spaceId: current.spaceId,
            ...fields,
            createdAt: at,
          },
        },
      ];
    },
    PromptDeleted: ({ data }) => [{ kind: 'delete', collection: PROMPTS, id: data.promptId }],
    SpaceDeleted: async ({ data: { spaceId } }, context) => [
      ...(await deleteOfSpace(context, PROMPTS, spaceId)),
      ...(await deleteOfSpace(context, PROMPT_VERSIONS, spaceId)),
    ],
  },
});
