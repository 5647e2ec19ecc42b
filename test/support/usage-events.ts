// The usage events an API key's calls recorded today, read from the event store: what the gateway billed.
import { EVENT_STORE, type EventStore } from '#event-store';
import { usageStreamId, utcDay, type ModelCall } from '#usage';
import { waitUntil } from '#testing/fixtures';
import type { TestApi } from './api.js';

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
    calls = events.map((event) => event.data as ModelCall).filter((call) => call.model === model);
    return calls.length >= count;
  }, 10_000);
  return calls;
}
