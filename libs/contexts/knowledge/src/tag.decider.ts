// Knowledge tag commands and the pure decision over them.
import { ConflictError, NotFoundError, ValidationError } from '#kernel';
import type { Decider } from '#eventsourcing';
import { COLOR_PATTERN } from '#spaces';
import { evolveTag, initialTagState, type TagEvent, type TagState } from './tag.events.js';

export const DEFAULT_TAG_COLOR = '#64748b';
export const MAX_TAG_NAME = 64;

export type TagCommand =
  | {
      readonly type: 'CreateTag';
      readonly tagId: string;
      readonly agentId: string;
      readonly name: string;
      readonly color: string;
    }
  | { readonly type: 'ChangeTag'; readonly tagId: string; readonly name?: string; readonly color?: string }
  | {
      readonly type: 'DeleteTag';
      readonly tagId: string;
      /** owner_deleted: a cascade, to which a tag gone meanwhile is no error. */
      readonly reason?: 'requested' | 'owner_deleted';
    };

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_TAG_NAME)
    throw new ValidationError('invalid_name', `name must be 1 to ${MAX_TAG_NAME} characters`, 'name');
  return trimmed;
}

function checkColor(color: string): string {
  if (!COLOR_PATTERN.test(color))
    throw new ValidationError('invalid_color', 'color must be a hex colour such as #1e88e5', 'color');
  return color;
}

export function decideTag(command: TagCommand, state: TagState): TagEvent[] {
  const { tagId } = command;
  if (command.type === 'CreateTag') {
    if (state.status !== 'absent') throw new ConflictError('tag_exists', `tag '${tagId}' already exists`);
    return [
      {
        type: 'KnowledgeTagCreated',
        data: {
          tagId,
          agentId: command.agentId,
          name: checkName(command.name),
          color: checkColor(command.color),
        },
      },
    ];
  }
  if (state.status !== 'active') {
    if (command.type === 'DeleteTag' && command.reason === 'owner_deleted') return [];
    throw new NotFoundError('Tag', tagId);
  }
  if (command.type === 'DeleteTag') return [{ type: 'KnowledgeTagDeleted', data: { tagId } }];
  const events: TagEvent[] = [];
  if (command.name !== undefined) {
    const name = checkName(command.name);
    if (name !== state.name) events.push({ type: 'KnowledgeTagRenamed', data: { tagId, name } });
  }
  if (command.color !== undefined && checkColor(command.color) !== state.color)
    events.push({ type: 'KnowledgeTagRecolored', data: { tagId, color: command.color } });
  return events;
}

export const tagDecider: Decider<TagState, TagCommand, TagEvent> = {
  initialState: initialTagState,
  evolve: evolveTag,
  decide: decideTag,
};
