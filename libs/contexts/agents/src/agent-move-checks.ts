// What other contexts must confirm before an Agent moves into another Space. Their rules are theirs (a Skill name the
// target Space already uses is the Skills context's to know), and they depend on Agents, never the reverse: so each
// registers its check here when its module starts, and the move command runs every check before it appends.
import { Injectable } from '@nestjs/common';
import type { AgentView } from './agents.read-model.js';

export interface AgentMoveCheck {
  /** Throws the error the move is refused with (a PlatformError: 4xx), or resolves when the move may go ahead. */
  beforeMove(agent: Pick<AgentView, 'id' | 'spaceId'>, targetSpaceId: string): Promise<void>;
}

@Injectable()
export class AgentMoveChecks {
  private readonly checks: AgentMoveCheck[] = [];

  add(check: AgentMoveCheck): void {
    if (!this.checks.includes(check)) this.checks.push(check);
  }

  async require(agent: Pick<AgentView, 'id' | 'spaceId'>, targetSpaceId: string): Promise<void> {
    for (const check of this.checks) await check.beforeMove(agent, targetSpaceId);
  }
}
