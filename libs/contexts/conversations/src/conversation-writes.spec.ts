import type { ReadYourWritesBus } from '#eventsourcing';
import { ConversationWrites } from './conversation-writes.js';

/** A bus whose waits are recorded and end when the test says. */
const bus = () => {
  const waits: number[] = [];
  const release: (() => void)[] = [];
  const writes = {
    settle: (position: number) => {
      waits.push(position);
      return new Promise<boolean>((resolve) => release.push(() => resolve(true)));
    },
  } as unknown as ReadYourWritesBus;
  return {
    waits,
    releaseAll: () => release.splice(0).forEach((go) => go()),
    releaseFirst: (count: number) => release.splice(0, count).forEach((go) => go()),
    writes,
  };
};

describe('ConversationWrites', () => {
  it('forgets a position once the read models reach it, whether or not it is read', async () => {
    const { waits, releaseAll, writes } = bus();
    const conversations = new ConversationWrites(writes);
    conversations.appended('cnv_1', 'usr_1', 7);
    releaseAll();
    await new Promise((resolve) => setImmediate(resolve));
    await conversations.settled('cnv_1');
    expect(waits).toEqual([7]);
  });

  it('reads of a conversation nothing was appended to do not wait', async () => {
    const { waits, writes } = bus();
    await new ConversationWrites(writes).settled('cnv_1');
    await new ConversationWrites(writes).settledFor('usr_1');
    expect(waits).toEqual([]);
  });

  it('waits for the last position appended to the conversation, then forgets it', async () => {
    const { waits, releaseAll, writes } = bus();
    const conversations = new ConversationWrites(writes);
    conversations.appended('cnv_1', 'usr_1', 7);
    conversations.appended('cnv_1', 'usr_1', 9);
    conversations.appended('cnv_1', 'usr_1', 8);
    const settled = conversations.settled('cnv_1');
    await Promise.resolve();
    // Each append's own wait (7, 9), then the read's.
    expect(waits).toEqual([7, 9, 9]);
    releaseAll();
    await settled;
    await conversations.settled('cnv_1');
    expect(waits).toEqual([7, 9, 9]);
  });

  it('keeps a position appended while a read waited for an older one', async () => {
    const { waits, releaseAll, releaseFirst, writes } = bus();
    const conversations = new ConversationWrites(writes);
    conversations.appended('cnv_1', 'usr_1', 3);
    const settled = conversations.settled('cnv_1');
    conversations.appended('cnv_1', 'usr_1', 5);
    // The read models reach 3, not yet 5.
    releaseFirst(2);
    await settled;
    const next = conversations.settled('cnv_1');
    await Promise.resolve();
    expect(waits).toEqual([3, 3, 5, 5]);
    releaseAll();
    await next;
  });

  it("a user's listing waits for the newest write to any of their conversations, not another user's", async () => {
    const { waits, releaseAll, writes } = bus();
    const conversations = new ConversationWrites(writes);
    conversations.appended('cnv_1', 'usr_1', 4);
    conversations.appended('cnv_2', 'usr_1', 6);
    conversations.appended('cnv_3', 'usr_2', 11);
    const listed = conversations.settledFor('usr_1');
    await Promise.resolve();
    expect(waits).toEqual([4, 6, 11, 6]);
    releaseAll();
    await listed;
    await conversations.settled('cnv_1');
    await conversations.settled('cnv_2');
    expect(waits).toEqual([4, 6, 11, 6]);
  });
});
