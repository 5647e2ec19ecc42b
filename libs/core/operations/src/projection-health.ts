// Projection health for /health, /metrics and the CLI: state, checkpoint and lag (events and seconds) per projector,
// from the local runner when it holds the projector, else from the stored checkpoints of the live generation (moved
// past the events the projector does not read: a runner stores the position of batches it skipped lazily).
import type { EventHeader, EventStore } from '#event-store';
import type { ReadStore } from '#read-store';
import type { ProjectionRunner, ProjectorState } from '#eventsourcing';

export interface ProjectionHealth {
  readonly name: string;
  readonly version: number | null;
  readonly state: ProjectorState | 'remote';
  readonly liveGeneration: number | null;
  readonly checkpoint: number;
  /** Events after the checkpoint (capped at LAG_CAP, reported as that number). */
  readonly lagEvents: number;
  /** Age of the oldest event not yet applied; 0 when caught up. */
  readonly lagSeconds: number;
  readonly rebuilding: { readonly generation: number; readonly checkpoint: number } | null;
  readonly lastError: string | null;
}

export const LAG_CAP = 10_000;

/** Where one projector stands before its lag is read: what the local runner or the stored checkpoints say. */
interface Standing {
  readonly name: string;
  readonly status: ReturnType<ProjectionRunner['status']>[number] | undefined;
  readonly held: boolean;
  readonly record: Awaited<ReturnType<ReadStore['projection']>>;
  readonly liveGeneration: number | null;
  readonly checkpoint: number;
}

/**
 * The headers of the events after `checkpoint`, at most LAG_CAP, taken from `shared` (the log after the lowest
 * checkpoint of all, read once: every projector of a process lags the same head) unless the shared read was cut short
 * before this projector's LAG_CAP events. Headers only: reading and parsing the events behind (megabytes while big
 * turns were appended) cost /health more than anything else, and blocked the event loop as long.
 */
async function eventsBehind(
  eventStore: EventStore,
  shared: { readonly after: number; readonly events: readonly EventHeader[] },
  checkpoint: number,
): Promise<EventHeader[]> {
  if (checkpoint !== shared.after && shared.events.length === LAG_CAP)
    return eventStore.readAllHeaders({ after: checkpoint, maxCount: LAG_CAP });
  const first = shared.events.findIndex((event) => event.position > checkpoint);
  return first < 0 ? [] : shared.events.slice(first, first + LAG_CAP);
}

export async function projectionHealth(
  eventStore: EventStore,
  readStore: ReadStore,
  runner: ProjectionRunner | null,
  names: readonly string[],
): Promise<ProjectionHealth[]> {
  const local = new Map((runner?.status() ?? []).map((status) => [status.name, status]));
  const now = Date.now();
  const standings = await Promise.all(
    names.map(async (name): Promise<Standing> => {
      const status = local.get(name);
      const held = status !== undefined && status.state !== 'standby' && status.state !== 'starting';
      const record = await readStore.projection(name);
      const liveGeneration = held ? status.liveGeneration : (record?.liveGeneration ?? null);
      const checkpoint = held
        ? status.checkpoint
        : liveGeneration === null
          ? 0
          : await readStore.checkpoint({ name, generation: liveGeneration });
      return { name, status, held, record, liveGeneration, checkpoint };
    }),
  );
  if (standings.length === 0) return [];
  // When the oldest event behind a projector happened: read whole, once per position (projectors mostly share it).
  const times = new Map<number, Promise<number>>();
  const occurredAt = (position: number): Promise<number> => {
    let time = times.get(position);
    if (!time) {
      time = eventStore
        .readAll({ after: position - 1, maxCount: 1 })
        .then(([event]) => (event ? Date.parse(event.metadata.occurredAt) : now));
      times.set(position, time);
    }
    return time;
  };
  const after = Math.min(...standings.map((standing) => standing.checkpoint));
  const shared = { after, events: await eventStore.readAllHeaders({ after, maxCount: LAG_CAP }) };
  return Promise.all(
    standings.map(async ({ name, status, held, record, liveGeneration, checkpoint: stored }) => {
      let checkpoint = stored;
      let behind = await eventsBehind(eventStore, shared, checkpoint);
      const projector = held ? undefined : runner?.projector(name);
      if (projector && record?.liveVersion === projector.version) {
        const reads = runner!.eventTypesOf(projector);
        const first = behind.findIndex((event) => reads.has(event.type));
        const skipped = first < 0 ? behind.length : first;
        if (skipped > 0) {
          checkpoint = behind[skipped - 1]!.position;
          behind =
            skipped === LAG_CAP
              ? await eventStore.readAllHeaders({ after: checkpoint, maxCount: LAG_CAP })
              : behind.slice(skipped);
        }
      }
      const oldest = behind[0];
      return {
        name,
        version: status?.version ?? record?.liveVersion ?? null,
        state: held ? status!.state : 'remote',
        liveGeneration,
        checkpoint,
        lagEvents: behind.length,
        lagSeconds: oldest ? Math.max(0, (now - (await occurredAt(oldest.position))) / 1000) : 0,
        rebuilding: held
          ? status!.rebuilding
          : record?.buildingGeneration != null
            ? {
                generation: record.buildingGeneration,
                checkpoint: await readStore.checkpoint({ name, generation: record.buildingGeneration }),
              }
            : null,
        lastError: status?.lastError ?? null,
      };
    }),
  );
}
