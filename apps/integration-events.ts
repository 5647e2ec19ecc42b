// The composition root's list of integration events (docs/api/integration-events.md): each context's map of the facts
// others hear of, and the relay that publishes them to the message bus. A new map (membership events, say) is one line.
import { Inject, Injectable } from '@nestjs/common';
import { IntegrationEventRelay, type IntegrationEventMap } from '#integration-events';
import { MESSAGE_BUS, type MessageBus } from '#message-bus';
import { AGENT_INTEGRATION_EVENTS } from '#agents';
import { DOCUMENT_INTEGRATION_EVENTS } from '#knowledge';
import { SKILL_INTEGRATION_EVENTS } from '#skills';
import { MEMORY_PROPOSAL_INTEGRATION_EVENTS } from '#memory';
import { USER_INTEGRATION_EVENTS } from '#identity';
import { MEMBERSHIP_INTEGRATION_EVENTS } from '#spaces';

export const INTEGRATION_EVENT_MAPS: readonly IntegrationEventMap[] = [
  AGENT_INTEGRATION_EVENTS,
  DOCUMENT_INTEGRATION_EVENTS,
  SKILL_INTEGRATION_EVENTS,
  MEMORY_PROPOSAL_INTEGRATION_EVENTS,
  USER_INTEGRATION_EVENTS,
  MEMBERSHIP_INTEGRATION_EVENTS,
];

/** The relay as the platform runs it: over the configured message bus. */
@Injectable()
export class PlatformIntegrationEventRelay extends IntegrationEventRelay {
  constructor(@Inject(MESSAGE_BUS) bus: MessageBus) {
    super(bus, INTEGRATION_EVENT_MAPS);
  }
}
