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
import { agentStreamId, type AgentEvent } from './agent.events.js';

export const personalAgentId = (userId: string): string => `agt_personal_${sha256(userId).slice(0, 24)}`;

/** The personal Agent that replaces one deleted by the event `deletionEventId` (derived: a replay makes the same). */
export const replacementPersonalAgentId = (userId: string, deletionEventId: string): string =>
  `agt_personal_${sha256(`${userId}:${deletionEventId}`).slice(0, 24)}`;

/**
 * Keeps the invariant "every user has a personal Agent": creates it when the user registers, and creates a new one
 * if a log holds the deletion of one (personal Agents can no longer be deleted, but logs written before could).
 */
@Injectable()
export class PersonalAgentProcess implements Projector {
  readonly name = 'personal-agent-process';
  readonly version = 2;
  readonly collections = [];
  readonly eventTypes = ['UserRegistered', 'AgentDeleted'];

  constructor(
    private readonly commands: CommandRunner,
    private readonly models: ModelRegistry,
  ) {}

  async project(envelope: EventEnvelope): Promise<never[]> {
    const event = envelope as unknown as UserEvent | AgentEvent;
    if (event.type === 'UserRegistered') {
      await this.ensure(personalAgentId(event.data.userId), event.data.userId, event.data.name, envelope);
      return [];
    }
    if (event.type !== 'AgentDeleted') return [];
    const { state } = await this.commands.load(agentStreamId(event.data.agentId), agentDecider);
    if (state.status !== 'deleted' || !state.isPersonal || !state.ownerUserId) return [];
    const name = state.name.replace(/'s assistant$/, '');
    await this.ensure(
      replacementPersonalAgentId(state.ownerUserId, envelope.id),
      state.ownerUserId,
      name,
      envelope,
    );
    return [];
  }

  private async ensure(agentId: string, userId: string, name: string, cause: EventEnvelope): Promise<void> {
    const { state } = await this.commands.load(agentStreamId(agentId), agentDecider);
    if (state.status !== 'absent') return;
    await this.commands.run(
      agentStreamId(agentId),
      agentDecider,
      {
        type: 'CreateAgent',
        agentId,
        spaceId: null,
        isPersonal: true,
        ownerUserId: userId,
        settings: { name: `${name}'s assistant`, model: this.models.defaultModel('chat')!.key },
      },
      causedBy(cause, 'personal-agent'),
    );
  }
}
