import { OpenedHistory } from './opened-history.js';

const values = (...pairs: [string, string][]) => new Map(pairs);

describe('OpenedHistory', () => {
  it('keeps exactly what a read kept, and forgets a conversation at once', () => {
    const opened = new OpenedHistory();
    expect(opened.take('cnv_1').size).toBe(0);
    opened.keep('cnv_1', values(['s1', 'one'], ['s2', 'two']));
    opened.keep('cnv_1', values(['s2', 'two']));
    expect([...opened.take('cnv_1')]).toEqual([['s2', 'two']]);
    opened.forget('cnv_1');
    expect(opened.take('cnv_1').size).toBe(0);
    expect(opened.size).toBe(0);
  });

  it('drops the least recently used conversations beyond its bounds, and keeps nothing bigger than them', () => {
    const opened = OpenedHistory.bounded(2, 100);
    opened.keep('cnv_1', values(['a', 'x']));
    opened.keep('cnv_2', values(['b', 'y']));
    opened.take('cnv_1'); // cnv_1 used last: cnv_2 goes first
    opened.keep('cnv_3', values(['c', 'z']));
    expect(opened.take('cnv_2').size).toBe(0);
    expect(opened.take('cnv_1').size).toBe(1);
    expect(opened.take('cnv_3').size).toBe(1);

    opened.keep('cnv_4', values(['d'.repeat(69), 'w'.repeat(30)])); // 99 characters: the others give way
    expect(opened.size).toBe(1);
    opened.keep('cnv_5', values(['e'.repeat(80), 'v'.repeat(30)])); // over the bound alone: not kept
    expect(opened.take('cnv_5').size).toBe(0);
    expect(opened.take('cnv_4').size).toBe(1);
  });
});
