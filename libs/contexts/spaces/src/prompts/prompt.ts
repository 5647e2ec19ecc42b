// The Space prompt library ("Agent Prompts", issue 22 §3): a prompt belongs to a Space (title, text, optional
// description and tags) and is versioned: each change is an event and a new version; earlier versions stay readable.
// Its events, state and read models (its decider: prompt.decider.ts). Members read prompts; editors create, revise and delete them (the
// policy's `prompt.read` and `prompt.change`).
import type { DomainEvent } from '#kernel';
import { defineReadModel } from '#eventsourcing';

export interface PromptFields {
  readonly title: string;
  readonly text: string;
  readonly description: string;
  readonly tags: readonly string[];
}

export type PromptEvent =
  | DomainEvent<'PromptCreated', { readonly promptId: string; readonly spaceId: string } & PromptFields>
  | DomainEvent<'PromptRevised', { readonly promptId: string; readonly version: number } & PromptFields>
  | DomainEvent<'PromptDeleted', { readonly promptId: string }>;

export type PromptState =
  | { readonly status: 'absent' }
  | ({
      readonly status: 'active' | 'deleted';
      readonly promptId: string;
      readonly spaceId: string;
      readonly version: number;
    } & PromptFields);

export const promptStreamId = (promptId: string) => `prompt-${promptId}`;

export const initialPromptState = (): PromptState => ({ status: 'absent' });

export const evolvePrompt = (state: PromptState, event: PromptEvent): PromptState => {
  switch (event.type) {
    case 'PromptCreated':
      return { status: 'active', version: 1, ...event.data };
    case 'PromptRevised':
      return state.status === 'absent' ? state : { ...state, ...event.data };
    case 'PromptDeleted':
      return state.status === 'absent' ? state : { ...state, status: 'deleted' };
  }
};

/** A prompt's current version. */
export interface PromptView extends PromptFields {
  readonly id: string;
  readonly spaceId: string;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** One version of a prompt (id `<promptId>:<version>`). */
export interface PromptVersionView extends PromptFields {
  readonly id: string;
  readonly promptId: string;
  readonly spaceId: string;
  readonly version: number;
  readonly createdAt: string;
}

export const PROMPTS = 'prompts';
export const PROMPT_VERSIONS = 'prompt_versions';

export const PROMPTS_READ_MODEL = defineReadModel<PromptView>({
  name: PROMPTS,
  projection: 'prompts',
  indexes: [{ fields: ['spaceId', 'createdAt'] }],
});

export const PROMPT_VERSIONS_READ_MODEL = defineReadModel<PromptVersionView>({
  name: PROMPT_VERSIONS,
  projection: 'prompts',
  indexes: [{ fields: ['promptId', 'version'] }, { fields: ['spaceId'] }],
});
