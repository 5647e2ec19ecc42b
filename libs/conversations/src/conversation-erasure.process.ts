// Process manager: destroys the data keys of what the log says was deleted (a message, a discarded checkpoint, a
// whole conversation). The deleting request destroys them at once; this makes it certain, since it consumes the
// checkpointed log: a process that died between the append and the destruction is caught up here. Destroying a key
// that is already gone is a no-op, so a replay changes nothing.
import { Inject, Injectable } from '@nestjs/common';
import type { EventEnvelope } from '#kernel';
import { eventHandlers, type ProjectionContext, type Projector } from '#eventsourcing';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { ConversationEvent } from './conversation.events.js';

type ErasureRead = Extract<
  ConversationEvent,
  { type: 'MessageDeleted' | 'CheckpointDiscarded' | 'ConversationDeleted' }
>;

@Injectable()
export class ConversationErasureProcess implements Projector {
  readonly name = 'conversation-erasure-process';
  readonly version = 1;
  readonly collections = [];

  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {}

  private readonly handlers = eventHandlers<ErasureRead>({
    MessageDeleted: async (event) => {
      await this.keys.destroy(event.data.messageId);
      return [];
    },
    CheckpointDiscarded: async (event) => {
      await this.keys.destroy(event.data.checkpointId);
      return [];
    },
    ConversationDeleted: async (event) => {
      await this.keys.destroyGroup(event.data.conversationId);
      return [];
    },
  });
  readonly eventTypes = this.handlers.eventTypes;

  project(event: EventEnvelope, context: ProjectionContext) {
    return this.handlers.project(event, context);
  }
}
