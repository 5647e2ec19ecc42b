// Builds the prompt library's read models (libs/spaces/src/prompts/prompt.ts): each prompt's current version, and
// every version.
import { defineProjector } from '#eventsourcing';
import type { PromptEvent, PromptView } from '#spaces';
import { PROMPT_VERSIONS, PROMPT_VERSIONS_READ_MODEL, PROMPTS, PROMPTS_READ_MODEL } from '#spaces';

export const promptsProjector = defineProjector<PromptEvent>({
  name: PROMPTS_READ_MODEL.projection,
  version: 1,
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
  },
});
