// What the Build pages share: the Space and Agent as the API answers them, the API's refusals as sentences in the
// page's language, and who may change what (a person's role in the Space, read from its members list).
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api';
import { errorSentence } from '../../errors';
import type { Label } from '../../i18n';
import type { Agent, List, Me, Space } from '../../state';

export interface SpaceDetails extends Space {
  readonly slug: string;
  readonly description: string;
  readonly color: string;
}

export interface AgentDetails extends Agent {
  readonly model: string;
  readonly systemPrompt: string;
  readonly ownerUserId: string | null;
  readonly memoryEnabled: boolean;
  readonly sharedMemoryEnabled: boolean;
  readonly isPublic: boolean;
  readonly allowedUrls: readonly string[];
  readonly embedSessionMinutes: number;
  readonly embedWindowTitle: string;
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly topK: number | null;
  readonly knowledgeEnabled: boolean;
  readonly includeAiSummary: boolean;
  readonly codeExecutionEnabled: boolean;
  readonly conversationTokenBudget: number | null;
  readonly embedLimits: EmbedLimits;
}

/** The public embed's abuse limits; null each: the instance default. */
export interface EmbedLimits {
  readonly visitorMessagesPerMinute: number | null;
  readonly agentMessagesPerMinute: number | null;
  readonly dailyCostUsd: number | null;
}

const SENTENCES: Readonly<Record<string, Label>> = {
  space_name_taken: 'spaceNameTaken',
  space_name_unavailable: 'spaceNameUnavailable',
  space_slug_taken: 'spaceSlugTaken',
  space_slug_unavailable: 'spaceSlugUnavailable',
  space_creation_restricted: 'refusedSpaceCreation',
  personal_space_locked: 'personalSpaceLocked',
  personal_space_undeletable: 'personalSpaceUndeletable',
  agent_access_denied: 'refusedAgentAccess',
  personal_agent_cannot_be_public: 'personalAgentNotPublic',
  invalid_field: 'invalidInput',
  missing_field: 'invalidInput',
};

/** What changing the Space itself (rename, delete) needs: its owners; what is in it needs its editors. */
export const SPACE_OWNER_REFUSALS: Readonly<Record<string, Label>> = {
  space_change_denied: 'refusedSpaceChange',
};

/**
 * The API's answer as a sentence in the page's language (never its English message): the build pages' own codes,
 * then the codes every page meets (errorSentence).
 */
export const buildError = (error: unknown, refusals: Readonly<Record<string, Label>> = {}): string =>
  errorSentence(error, { ...SENTENCES, ...refusals });

/** Which Space field a refusal is about (to show it next to that field). */
export const spaceFieldOf = (error: unknown): 'name' | 'slug' | null =>
  error instanceof ApiError && /^space_name_/.test(error.code)
    ? 'name'
    : error instanceof ApiError && /^space_slug_|^personal_space_locked$/.test(error.code)
      ? 'slug'
      : null;

export type SpaceRole = 'owner' | 'editor' | 'member';

/** The person's role in a Space: admins count as owners, a personal Space is its user's; undefined while loading. */
export function useSpaceRole(spaceId: string | null, me: Me, personal = false): SpaceRole | null | undefined {
  const [role, setRole] = useState<SpaceRole | null | undefined>(undefined);
  useEffect(() => {
    if (spaceId === null) return;
    if (me.role === 'admin' || personal) {
      setRole('owner');
      return;
    }
    const path = `spaces/${encodeURIComponent(spaceId)}/members?limit=200`;
    api<List<{ userId: string; role: SpaceRole }>>('GET', path).then(
      (members) => setRole(members.data.find((m) => m.userId === me.id)?.role ?? null),
      () => setRole(null),
    );
  }, [spaceId, me.id, personal]);
  return role;
}

/** Loads one thing from the API: the value, null while loading, or the error as a sentence. */
export function useLoaded<T>(path: string | null): [T | null, string | null, (value: T) => void] {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (path === null) return;
    api<T>('GET', path).then(setValue, (failure: unknown) => setError(buildError(failure)));
  }, [path]);
  return [value, error, setValue];
}
