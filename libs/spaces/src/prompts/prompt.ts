// The Space prompt library ("Agent Prompts", issue 22 §3): a prompt belongs to a Space (title, text, optional
// description and tags) and is versioned: each change is an event and a new version; earlier versions stay readable.
// Its events, state, decider and read models. Members read prompts; editors create, revise and delete them (the
// policy's `prompt.read` and `prompt.change`).
import { ConflictError, NotFoundError, ValidationError, type DomainEvent } from '#kernel';
import { defineReadModel, type Decider } from '#eventsourcing';

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

export type PromptCommand =
  | ({ readonly type: 'CreatePrompt'; readonly promptId: string; readonly spaceId: string } & PromptFields)
  | ({ readonly type: 'RevisePrompt'; readonly promptId: string } & Partial<PromptFields>)
  | { readonly type: 'DeletePrompt'; readonly promptId: string };

export const promptStreamId = (promptId: string) => `prompt-${promptId}`;

function check(fields: Partial<PromptFields>): void {
  if (fields.title !== undefined && fields.title.trim().length === 0)
    throw new ValidationError('invalid_title', 'title must not be empty', 'title');
  if (fields.text !== undefined && fields.text.trim().length === 0)
    throw new ValidationError('invalid_text', 'text must not be empty', 'text');
}

const sameTags = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((tag, index) => tag === b[index]);

export const promptDecider: Decider<PromptState, PromptCommand, PromptEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PromptCreated':
        return { status: 'active', version: 1, ...event.data };
      case 'PromptRevised':
        return state.status === 'absent' ? state : { ...state, ...event.data };
      case 'PromptDeleted':
        return state.status === 'absent' ? state : { ...state, status: 'deleted' };
    }
  },
  decide: (command, state) => {
    const { promptId } = command;
    switch (command.type) {
      case 'CreatePrompt': {
        if (state.status !== 'absent')
          throw new ConflictError('prompt_exists', `prompt '${promptId}' exists`);
        check(command);
        const { type: _type, ...data } = command;
        return [{ type: 'PromptCreated', data: { ...data, title: data.title.trim() } }];
      }
      case 'RevisePrompt': {
        if (state.status !== 'active') throw new NotFoundError('Prompt', promptId);
        check(command);
        const next: PromptFields = {
          title: command.title?.trim() ?? state.title,
          text: command.text ?? state.text,
          description: command.description ?? state.description,
          tags: command.tags ?? state.tags,
        };
        const same =
          next.title === state.title &&
          next.text === state.text &&
          next.description === state.description &&
          sameTags(next.tags, state.tags);
        return same
          ? []
          : [{ type: 'PromptRevised', data: { promptId, version: state.version + 1, ...next } }];
      }
      case 'DeletePrompt':
        if (state.status === 'absent') throw new NotFoundError('Prompt', promptId);
        return state.status === 'deleted' ? [] : [{ type: 'PromptDeleted', data: { promptId } }];
    }
  },
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
