// A standalone App is served under the stable id of its `/meta` (`/app/notes`) as well as its platform id, so that id
// is unique across Apps, compared without case. As Space slugs are: a claim stream per id (#eventsourcing's unique
// claims), taken when a `/meta` declaring it is recorded; a claim is stale once its App is deleted, is no longer
// standalone or declares another id. Ids of the platform's own form (`app_…`) are never taken: the platform id wins.
import { claimUnique, type AggregateRepository, type CommandContext } from '#eventsourcing';
import { ConflictError } from '#kernel';
import { appDecider } from './app.decider.js';
import { appStreamId, type AppMeta } from './app.events.js';

const CLAIM_KIND = 'app-standalone-id';

/** The read model's key of a standalone App's `/meta` id (null for an App that is not standalone). */
export const standaloneKey = (meta: AppMeta | null): string | null =>
  meta?.standalone ? meta.id.toLowerCase() : null;

/** Claims a standalone meta's id for the App; 409 `app_id_taken` when another App is served under it. */
export async function claimStandaloneId(
  aggregates: AggregateRepository,
  appId: string,
  meta: AppMeta,
  context: CommandContext,
): Promise<void> {
  const key = standaloneKey(meta);
  if (key === null) return;
  const taken = () =>
    new ConflictError(
      'app_id_taken',
      `another App is served at /app/${meta.id}: a standalone App's /meta id must be unique (change it in its /meta)`,
      'meta.id',
    );
  if (key.startsWith('app_')) throw taken();
  await claimUnique(
    aggregates.store,
    CLAIM_KIND,
    key,
    appId,
    async (holder) => {
      const { state } = await aggregates.load(appStreamId(holder), appDecider);
      return state.status === 'active' && standaloneKey(state.meta) === key;
    },
    context,
  ).catch((error: unknown) => {
    throw (error as { code?: string }).code === `${CLAIM_KIND}_taken` ? taken() : error;
  });
}
