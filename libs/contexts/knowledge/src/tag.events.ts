// Knowledge tags (spec: "Knowledge tag"): named, coloured labels an Agent's documents carry. A tag belongs to the
// Agent whose routes created it.
import type { DomainEvent } from '#kernel';

type Id = { readonly tagId: string };

export type TagEvent =
  | DomainEvent<
      'KnowledgeTagCreated',
      Id & { readonly agentId: string; readonly name: string; readonly color: string }
    >
  | DomainEvent<'KnowledgeTagRenamed', Id & { readonly name: string }>
  | DomainEvent<'KnowledgeTagRecolored', Id & { readonly color: string }>
  | DomainEvent<'KnowledgeTagDeleted', Id>;

export type TagState =
  | { readonly status: 'absent' | 'deleted' }
  | {
      readonly status: 'active';
      readonly tagId: string;
      readonly agentId: string;
      readonly name: string;
      readonly color: string;
    };

export const tagStreamId = (tagId: string): string => `knowledge-tag-${tagId}`;

export const initialTagState = (): TagState => ({ status: 'absent' });

export function evolveTag(state: TagState, event: TagEvent): TagState {
  switch (event.type) {
    case 'KnowledgeTagCreated':
      return { status: 'active', ...event.data };
    case 'KnowledgeTagRenamed':
      return state.status === 'active' ? { ...state, name: event.data.name } : state;
    case 'KnowledgeTagRecolored':
      return state.status === 'active' ? { ...state, color: event.data.color } : state;
    case 'KnowledgeTagDeleted':
      return { status: 'deleted' };
  }
}
