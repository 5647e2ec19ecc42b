import { USER_MESSAGE_FIELDS, type PlainMessage } from './conversation-records.js';
import { OpenedHistory, type OpenedMessages } from './opened-history.js';

const message = (id: string, content: string): PlainMessage => ({
  id,
  role: 'user',
  content,
  attachments: [],
  ...USER_MESSAGE_FIELDS,
  parentId: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

const served = (...contents: string[]): OpenedMessages => ({
  destructions: 0,
  fromStart: true,
  throughSeq: contents.length,
  messages: contents.map((content, i) => message(`msg_${i}`, content)),
});

const contentsOf = (opened: OpenedMessages | null) => opened?.messages.map((each) => each.content) ?? null;

describe('OpenedHistory', () => {
  it('keeps exactly what a read served, and forgets a conversation at once', () => {
    const opened = new OpenedHistory();
    expect(opened.take('cnv_1')).toBeNull();
    opened.keep('cnv_1', served('one', 'two'));
    opened.keep('cnv_1', served('two'));
    expect(contentsOf(opened.take('cnv_1'))).toEqual(['two']);
    opened.forget('cnv_1');
    expect(opened.take('cnv_1')).toBeNull();
    expect(opened.size).toBe(0);
  });

  it('drops the least recently used conversations beyond its bounds, and keeps nothing bigger than them', () => {
    const opened = OpenedHistory.bounded(2, 100);
    opened.keep('cnv_1', served('x'));
    opened.keep('cnv_2', served('y'));
    opened.take('cnv_1'); // cnv_1 used last: cnv_2 goes first
    opened.keep('cnv_3', served('z'));
    expect(opened.take('cnv_2')).toBeNull();
    expect(contentsOf(opened.take('cnv_1'))).toEqual(['x']);
    expect(contentsOf(opened.take('cnv_3'))).toEqual(['z']);

    opened.keep('cnv_4', served('d'.repeat(70), 'w'.repeat(30))); // 100 characters: the others give way
    expect(opened.size).toBe(1);
    opened.keep('cnv_5', served('e'.repeat(80), 'v'.repeat(30))); // over the bound alone: not kept
    expect(opened.take('cnv_5')).toBeNull();
    expect(contentsOf(opened.take('cnv_4'))).toHaveLength(2);
  });
});
