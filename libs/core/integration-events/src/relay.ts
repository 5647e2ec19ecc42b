// The integration-event relay: a projector with no read model. The projection runner feeds it the log from its
// checkpoint; for each event some context publishes it sends the integration event to the message bus and waits for
// the bus's acknowledgement before returning, and the runner stores the checkpoint only after the whole batch has
// returned. So every event is published at least once: a crash between the publish and the checkpoint publishes the
// batch again after the restart, with the same ids (the source events' ids), which is what consumers de-duplicate on.
// Messages are keyed by the source stream, so one entity's events keep their order.
//
// Its name keys its checkpoint: never rename it. Bumping its version republishes the whole log (at least once still).
import type { EventEnvelope } from '#kernel';
import type { Projector } from '#eventsourcing';
import type { MessageBus } from '#message-bus';
import { toIntegrationEvent, type IntegrationEventMap } from './integration-event.js';

export const INTEGRATION_EVENT_RELAY = 'integration-event-relay';

export class IntegrationEventRelay implements Projector {
  readonly name = INTEGRATION_EVENT_RELAY;
  readonly version = 1;
  readonly collections = [];
  readonly eventTypes: readonly string[];

  constructor(
    private readonly bus: MessageBus,
    private readonly maps: readonly IntegrationEventMap[],
  ) {
    const types = new Set<string>();
    for (const { entity, map } of maps)
      for (const type of Object.keys(map)) {
        if (types.has(type))
          throw new Error(`Two integration-event maps read ${type} (the second: ${entity})`);
        types.add(type);
      }
    this.eventTypes = [...types];
  }

  async project(event: EventEnvelope): Promise<readonly []> {
    const mapped = toIntegrationEvent(this.maps, event);
    if (mapped)
      await this.bus.publish(mapped.topic, [
        { key: event.streamId, id: mapped.event.id, type: mapped.event.type, value: mapped.event },
      ]);
    return [];
  }
}
