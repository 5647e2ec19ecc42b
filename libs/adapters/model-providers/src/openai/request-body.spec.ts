import { requestBody } from './request-body.js';

const frozen = (role: string, content: string) => Object.freeze({ role, content });
const sent = (body: string | Buffer[]) =>
  JSON.parse(typeof body === 'string' ? body : Buffer.concat(body).toString('utf8')) as unknown;

describe('requestBody', () => {
  it('is JSON.stringify of a request without frozen messages', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 };
    expect(requestBody(body)).toBe(JSON.stringify(body));
  });

  it('sends the same JSON value when frozen messages run between others', () => {
    const body = {
      messages: [
        { role: 'system', content: 'rules' },
        frozen('user', 'Grüße — "quoted" \\ back\nslash 😀'),
        frozen('assistant', 'two'),
        { role: 'tool', tool_call_id: 't1', content: 'result', extra: undefined },
        frozen('user', 'three'),
        // What JSON.stringify writes as null in an array (a toJSON answering undefined) is null here too.
        Object.freeze({ toJSON: () => undefined }),
      ],
      model: 'm',
      stream: true,
      stream_options: { include_usage: true },
      absent: undefined,
    };
    const pieces = requestBody(body);
    expect(typeof pieces).not.toBe('string');
    expect(sent(pieces)).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it('serialises a frozen message once, however many requests carry it', () => {
    let serialised = 0;
    const message = Object.freeze({
      role: 'user',
      content: 'once',
      toJSON() {
        serialised++;
        return { role: 'user', content: 'once' };
      },
    });
    const history = [frozen('user', 'first'), message];
    for (let turn = 0; turn < 3; turn++)
      expect(sent(requestBody({ model: 'm', messages: [...history, frozen('user', `q${turn}`)] }))).toEqual({
        model: 'm',
        messages: [
          { role: 'user', content: 'first' },
          { role: 'user', content: 'once' },
          { role: 'user', content: `q${turn}` },
        ],
      });
    expect(serialised).toBe(1);
  });

  it('never changes bytes a request was given, when later requests extend or branch the same history', () => {
    const history = Array.from({ length: 50 }, (_, i) =>
      frozen(i % 2 ? 'assistant' : 'user', `message ${i}`),
    );
    const first = requestBody({ model: 'm', messages: history }) as Buffer[];
    const before = Buffer.concat(first).toString('utf8');
    // The next turn (the same objects and more), then one that branched before its end (another object at 49).
    const next = [...history, frozen('user', 'next question')];
    const branched = [...history.slice(0, 49), frozen('assistant', 'another answer'), frozen('user', 'q')];
    expect(sent(requestBody({ model: 'm', messages: next }))).toEqual({ model: 'm', messages: next });
    expect(sent(requestBody({ model: 'm', messages: branched }))).toEqual({ model: 'm', messages: branched });
    // Equal messages as other objects (a question read back from the history) are sent as they are too.
    const reread = [...history, frozen('user', 'next question'), frozen('assistant', 'answer')];
    expect(sent(requestBody({ model: 'm', messages: reread }))).toEqual({ model: 'm', messages: reread });
    expect(Buffer.concat(first).toString('utf8')).toBe(before);
    expect(sent(first)).toEqual({ model: 'm', messages: history });
  });
});
