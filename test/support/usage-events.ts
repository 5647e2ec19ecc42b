// The usage events an API key's calls recorded today, read from the event store: what the gateway billed.
import { EVENT_STORE, type EventStore } from '#event-store';
import type { EventEnvelope } from '#kernel';
import {
  callsOf,
  usageStreamId,
  utcDay,
  type BatchedModelCall,
  type ModelCall,
  type UsageEvent,
} from '#usage';
import { waitUntil } from '#testing/fixtures';
import type { TestApi } from './api.js';

/**
 * The model calls of some events (batches, and single calls as older logs hold them), each with the correlation id of
 * its request; other events give none.
 */
export function recordedCalls(events: readonly EventEnvelope[]): BatchedModelCall[] {
  return events.flatMap((event) => {
    if (event.type === 'ModelCallsRecorded') return callsOf(event as UsageEvent) as BatchedModelCall[];
    if (event.type === 'ModelCallRecorded')
      return [{ ...(event.data as ModelCall), correlationId: event.metadata.correlationId }];
    return [];
  });
}

/** The key's usage events of `model`, once `count` are recorded. */
export async function usageEventsOf(
  api: TestApi,
  apiKeyId: string,
  model: string,
  count: number,
): Promise<ModelCall[]> {
  const store = api.app.get<EventStore>(EVENT_STORE);
  let calls: ModelCall[] = [];
  await waitUntil(async () => {
    const events = await store.readStream(usageStreamId(apiKeyId, utcDay(new Date())));
    calls = recordedCalls(events).filter((call) => call.model === model);
    return calls.length >= count;
  }, 10_000);
  return calls;
}
