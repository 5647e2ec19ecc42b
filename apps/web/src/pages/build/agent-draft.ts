// An Agent's settings as the form holds them, and the body of the update: only the fields that changed (a public
// Agent's memory is not sent: the API refuses memory for public Agents and turns it off itself).
import type { AgentDetails, EmbedLimits } from './build-kit';

export interface AgentDraft {
  readonly name: string;
  readonly model: string;
  readonly systemPrompt: string;
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly topK: number | null;
  readonly knowledgeEnabled: boolean;
  readonly includeAiSummary: boolean;
  readonly memoryEnabled: boolean;
  readonly sharedMemoryEnabled: boolean;
  readonly codeExecutionEnabled: boolean;
  readonly isPublic: boolean;
  /** Comma-separated, as typed. */
  readonly allowedUrls: string;
  readonly embedSessionMinutes: number;
  readonly embedWindowTitle: string;
  readonly embedLimits: EmbedLimits;
  readonly conversationTokenBudget: number | null;
}

export type SetDraft = (change: Partial<AgentDraft>) => void;

export const draftOf = (agent: AgentDetails): AgentDraft => ({
  name: agent.name,
  model: agent.model,
  systemPrompt: agent.systemPrompt,
  temperature: agent.temperature,
  topP: agent.topP,
  topK: agent.topK,
  knowledgeEnabled: agent.knowledgeEnabled,
  includeAiSummary: agent.includeAiSummary,
  memoryEnabled: agent.memoryEnabled,
  sharedMemoryEnabled: agent.sharedMemoryEnabled,
  codeExecutionEnabled: agent.codeExecutionEnabled,
  isPublic: agent.isPublic,
  allowedUrls: agent.allowedUrls.join(', '),
  embedSessionMinutes: agent.embedSessionMinutes,
  embedWindowTitle: agent.embedWindowTitle,
  embedLimits: agent.embedLimits,
  conversationTokenBudget: agent.conversationTokenBudget,
});

export function changesOf(before: AgentDraft, after: AgentDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof AgentDraft)[])
    if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) body[key] = after[key];
  if (after.isPublic) {
    delete body.memoryEnabled;
    delete body.sharedMemoryEnabled;
  }
  return body;
}
