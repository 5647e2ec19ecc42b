// When memory is read or written (spec: "Memory"): never for public Agents, anonymous users or incognito
// conversations, nor for API-driven streamed turns (they stay a raw model call with Knowledge; the web app's streamed
// turns, a signed-in person's, are not API-driven); only while the Agent
// has memory enabled (turning it off stops new memories; existing ones persist until deleted, unused). Shared
// memories need `sharedMemoryEnabled`, and an Agent with no Space (a personal Agent: a private space of one) keeps
// every memory personal.
import type { AgentView } from '#agents';

export interface MemoryTurn {
  readonly agent: Pick<
    AgentView,
    'memoryEnabled' | 'sharedMemoryEnabled' | 'isPublic' | 'isPersonal' | 'spaceId'
  >;
  /** False where nothing of the turn may outlive its conversation (incognito). */
  readonly keepsTraces: boolean;
  readonly streamed: boolean;
  /** Null for an anonymous visitor (the embed widget, later). */
  readonly userId: string | null;
}

export const memoryApplies = (turn: MemoryTurn): boolean =>
  turn.agent.memoryEnabled &&
  !turn.agent.isPublic &&
  turn.userId !== null &&
  turn.keepsTraces &&
  !turn.streamed;

/** Whether the Agent keeps new memories at all (memory off, always so for a public Agent, stops them). */
export const keepsNewMemories = (agent: Pick<AgentView, 'memoryEnabled' | 'isPublic'>): boolean =>
  agent.memoryEnabled && !agent.isPublic;

/** Whether the Agent's shared bucket is read and written at all. */
export const sharedMemoryApplies = (agent: MemoryTurn['agent']): boolean =>
  agent.sharedMemoryEnabled && !agent.isPersonal && agent.spaceId !== null;

export const cosine = (a: readonly number[], b: readonly number[]): number => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
};
