import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ReadYourWritesBus } from '#eventsourcing';
import { ContentCipher } from '#key-store';
import { READ_STORE } from '#read-store';
import { ConversationReader } from './conversation.reader.js';
import { ConversationWrites } from './conversation-writes.js';

// Read-your-writes across the container: the reader Nest builds gets the module's ConversationWrites, so a read of a
// conversation waits for what a turn appended to it (the read models apply the log a moment after the append).
describe('ConversationReader in its module', () => {
  it('waits for the positions a turn appended before it reads the conversation', async () => {
    const asked: number[] = [];
    let release: () => void = () => undefined;
    const applied = new Promise<boolean>((resolve) => (release = () => resolve(true)));
    const writesBus = { settle: (position: number) => (asked.push(position), applied) };
    const readStore = { reader: () => ({ find: async () => ({ data: [], nextCursor: null }) }) };
    @Module({
      providers: [
        ConversationReader,
        ConversationWrites,
        { provide: ReadYourWritesBus, useValue: writesBus },
        { provide: ContentCipher, useValue: { openMany: async () => [] } },
        { provide: READ_STORE, useValue: readStore },
      ],
    })
    class ReaderModule {}
    const app = await NestFactory.createApplicationContext(ReaderModule, { logger: false });
    try {
      app.get(ConversationWrites).appended('cnv_1', 'usr_1', 7);
      let read = false;
      const page = app
        .get(ConversationReader)
        .messages('cnv_1', { limit: 10, cursor: null })
        .then(() => (read = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(read).toBe(false);
      // The turn's own wait, then the read's.
      expect(asked).toEqual([7, 7]);
      release();
      await page;
      expect(read).toBe(true);
    } finally {
      await app.close();
    }
  });
});
