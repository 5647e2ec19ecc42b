import {
  foldTerm,
  matchExpression,
  MAX_QUERY_TERMS,
  ownerToken,
  queryTerms,
  quoteFts,
} from './fts5-query.js';

describe('FTS5 query text', () => {
  it('cuts text into distinct words; operators, quotes and punctuation are separators or plain words', () => {
    expect(queryTerms('Configure the proxy, then the PROXY again!')).toEqual([
      'Configure',
      'the',
      'proxy',
      'then',
      'again',
    ]);
    expect(queryTerms('alpha AND "beta" OR NOT NEAR(gamma*, 2) -delta ^eps col:val')).toEqual([
      'alpha',
      'AND',
      'beta',
      'OR',
      'NOT',
      'NEAR',
      'gamma',
      '2',
      'delta',
      'eps',
      'col',
      'val',
    ]);
    expect(queryTerms('Crème brûlée 中文 e\u0301')).toEqual(['Crème', 'brûlée', '中文', 'e\u0301']);
    expect(queryTerms('"(*)" \u0000 \uD800 😀 ')).toEqual([]);
    expect(queryTerms('')).toEqual([]);
    expect(queryTerms(undefined)).toEqual([]);
  });

  it('keeps at most MAX_QUERY_TERMS words, and treats case and diacritic variants as one', () => {
    const words = Array.from({ length: 100 }, (_, n) => `w${n}`);
    expect(queryTerms(words.join(' '))).toEqual(words.slice(0, MAX_QUERY_TERMS));
    expect(queryTerms('Café cafe CAFÉ café')).toEqual(['Café']);
    expect(foldTerm('CAFÉ')).toBe('cafe');
  });

  it('quotes every word and ORs them in the text column, with owners as tokens of the owner column', () => {
    expect(quoteFts('say "hi"')).toBe('"say ""hi"""');
    expect(matchExpression(['alpha', 'NOT'], null)).toBe('text : ("alpha" OR "NOT")');
    expect(matchExpression(['alpha'], ['agt_1', 'global'])).toBe(
      `text : ("alpha") AND owner : ("${ownerToken('agt_1')}" OR "${ownerToken('global')}")`,
    );
  });

  it('maps each owner to one token of hex digits that no other owner shares', () => {
    expect(ownerToken('global')).toBe('o676c6f62616c');
    expect(ownerToken('agt_1')).not.toBe(ownerToken('agt_10'));
    expect(ownerToken('Agt')).not.toBe(ownerToken('agt'));
    expect(ownerToken('a "b" c')).toMatch(/^o[0-9a-f]+$/);
  });
});
