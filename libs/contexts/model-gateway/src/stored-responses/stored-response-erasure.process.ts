// Process manager: destroys the data key of a stored response the log says was deleted or expired. The deleting
// request (or the sweeper) destroys it at once; this makes it certain, since it consumes the checkpointed log.
import { Inject, Injectable } from '@nestjs/common';
import { defineProcess, erasureHandlers, type EventHandlers } from '#eventsourcing';
import { KEY_STORE, type KeyStore } from '#key-store';
import type { StoredResponseEvent } from './stored-response.events.js';

type Read = Extract<StoredResponseEvent, { type: 'ResponseDeleted' }>;

@Injectable()
export class StoredResponseErasureProcess extends defineProcess<Read>({
  name: 'stored-response-erasure-process',
  version: 1,
}) {
  constructor(@Inject(KEY_STORE) private readonly keys: KeyStore) {
    super();
  }

  readonly on: EventHandlers<Read> = erasureHandlers<Read>(
    { ResponseDeleted: ({ data }) => ({ keys: [data.responseId] }) },
    () => this.keys,
  );
}
