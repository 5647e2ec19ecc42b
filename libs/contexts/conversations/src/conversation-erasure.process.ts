// Process manager: destroys the data keys of what the log says was deleted (a message, a discarded checkpoint, a
// whole conversation). The deleting request destroys them at once; this makes it certain, since it consumes the
// checkpointed log: a process that died between the append and the destruction is caught up here. Destroying a key
// that is already gone is a no-op, so a replay changes nothing.
import { Inject, Injectable } from '@nestjs/common';
import { defineProcess, erasureHandlers, type EventHandlers } from '#eventsourcing';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { ConversationEvent } from './conversation.events.js';

type Read = Extract<
  ConversationEvent,
  { type: 'MessageDeleted' | 'CheckpointDiscarded' | 'ConversationDeleted' }
>;

@Injectable()
export class ConversationErasureProcess extends defineProcess<Read>({
  name: 'conversation-erasure-process',
  version: 1,
}) {
  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {
    super();
  }

  readonly on: EventHandlers<Read> = erasureHandlers<Read>(
    {
      MessageDeleted: ({ data }) => ({ keys: [data.messageId] }),
      CheckpointDiscarded: ({ data }) => ({ keys: [data.checkpointId] }),
      ConversationDeleted: ({ data }) => ({ groups: [data.conversationId] }),
    },
    () => this.keys,
  );
}
