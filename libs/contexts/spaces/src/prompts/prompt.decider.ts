// The prompt's commands and the pure decision over each: created once, revised into a new version when something
// changes, deleted once.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import { decideByType, type Decider } from '#eventsourcing';
import {
  evolvePrompt,
  initialPromptState,
  type PromptEvent,
  type PromptFields,
  type PromptState,
} from './prompt.js';

export type PromptCommand =
  | ({ readonly type: 'CreatePrompt'; readonly promptId: string; readonly spaceId: string } & PromptFields)
  | ({ readonly type: 'RevisePrompt'; readonly promptId: string } & Partial<PromptFields>)
  | { readonly type: 'DeletePrompt'; readonly promptId: string };

type PromptOf<Type extends PromptCommand['type']> = Extract<PromptCommand, { readonly type: Type }>;

function check(fields: Partial<PromptFields>): void {
  if (fields.title !== undefined && fields.title.trim().length === 0)
    throw new ValidationError('invalid_title', 'title must not be empty', 'title');
  if (fields.text !== undefined && fields.text.trim().length === 0)
    throw new ValidationError('invalid_text', 'text must not be empty', 'text');
}

const sameTags = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((tag, index) => tag === b[index]);

function createPrompt(command: PromptOf<'CreatePrompt'>, state: PromptState): PromptEvent[] {
  if (state.status !== 'absent')
    throw new ConflictError('prompt_exists', `prompt '${command.promptId}' exists`);
  check(command);
  const { type: _type, ...data } = command;
  return [{ type: 'PromptCreated', data: { ...data, title: data.title.trim() } }];
}

function revisePrompt(command: PromptOf<'RevisePrompt'>, state: PromptState): PromptEvent[] {
  const { promptId } = command;
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
  return same ? [] : [{ type: 'PromptRevised', data: { promptId, version: state.version + 1, ...next } }];
}

function deletePrompt({ promptId }: PromptOf<'DeletePrompt'>, state: PromptState): PromptEvent[] {
  if (state.status === 'absent') throw new NotFoundError('Prompt', promptId);
  return state.status === 'deleted' ? [] : [{ type: 'PromptDeleted', data: { promptId } }];
}

export const promptDecider: Decider<PromptState, PromptCommand, PromptEvent> = {
  initialState: initialPromptState,
  evolve: evolvePrompt,
  decide: decideByType<PromptState, PromptCommand, PromptEvent>({
    CreatePrompt: createPrompt,
    RevisePrompt: revisePrompt,
    DeletePrompt: deletePrompt,
  }),
};
