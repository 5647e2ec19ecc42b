// Process manager: every registered user gets a personal chat Agent (isPersonal, no Space), created through the
// ordinary CreateAgent command with an id and event ids derived from the registration, so a replay creates nothing.
import { Injectable } from '@nestjs/common';
import { sha256, type EventEnvelope } from '../../kernel/src/index.js';
import { causedBy } from '../../eventsourcing/src/decider.js';
import type { Projector } from '../../eventsourcing/src/projector.js';
import { ModelRegistry } from '../../models/src/model-registry.js';
import { CommandRunner } from '../../platform/src/command-runner.js';
import type { UserEvent } from '../../identity/src/user.events.js';
import { agentDecider } from './agent.decider.js';
import { agentStreamId } from './agent.events.js';

export const personalAgentId = (userId: string): string => `agt_personal_${sha256(userId).slice(0, 24)}`;

@Injectable()
export class PersonalAgentProcess implements Projector {
  readonly name = 'personal-agent-process';
  readonly version = 1;
  readonly collections = [];
  readonly eventTypes = ['UserRegistered'];

  constructor(
    private readonly commands: CommandRunner,
    private readonly models: ModelRegistry,
  ) {}

  async project(envelope: EventEnvelope): Promise<never[]> {
    const event = envelope as unknown as UserEvent;
    const agentId = personalAgentId(event.data.userId);
    const { state } = await this.commands.load(agentStreamId(agentId), agentDecider);
    if (state.status !== 'absent') return [];
    await this.commands.run(
      agentStreamId(agentId),
      agentDecider,
      {
        type: 'CreateAgent',
        agentId,
        spaceId: null,
        isPersonal: true,
        ownerUserId: event.data.userId,
        settings: { name: `${event.data.name}'s assistant`, model: this.models.defaultModel('chat')!.key },
      },
      causedBy(envelope, 'personal-agent'),
    );
    return [];
  }
}
