// User text → a safe FTS5 MATCH expression. The text is cut into words (runs of letters, digits and combining
// marks); everything else, FTS5 operators and quotes included, is a separator, and each word is sent as a quoted
// string, so no input can form syntax: `AND`, `NEAR`, `*` or `"` are plain words or nothing at all.

/** Words beyond this many distinct ones are ignored: a 10,000-character query stays one cheap MATCH. */
export const MAX_QUERY_TERMS = 32;

/** The column filter on owners is only worth it for a few owners; beyond this the join checks owners alone. */
export const MAX_OWNER_TOKENS = 16;

const SEPARATORS = /[^\p{L}\p{N}\p{M}]+/u;

/** How FTS5's unicode61 tokenizer (remove_diacritics 2) folds a word, near enough to look it up in fts5vocab. */
export const foldTerm = (term: string): string => term.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The distinct words of the text, in order of first appearance, at most MAX_QUERY_TERMS. */
export function queryTerms(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  const terms = new Map<string, string>();
  for (const word of text.split(SEPARATORS)) {
    if (terms.size >= MAX_QUERY_TERMS) break;
    const folded = foldTerm(word);
    if (folded.length > 0 && !terms.has(folded)) terms.set(folded, word);
  }
  return [...terms.values()];
}

/** An FTS5 string: double quotes around, inner double quotes doubled. */
export const quoteFts = (term: string): string => `"${term.replaceAll('"', '""')}"`;

/**
 * The single token that stands for an owner in the index's `owner` column: 'o' and the hex of its UTF-8 bytes,
 * which the tokenizer keeps whole and no two owners share.
 */
export const ownerToken = (ownerId: string): string => `o${Buffer.from(ownerId, 'utf8').toString('hex')}`;

/** Whether a query's split between rows with rarer words and the rest is about the rows holding `others` or not. */
export interface OtherTerms {
  readonly terms: readonly string[];
  /** true: rows holding one of `terms` and one of `others`; false: rows holding one of `terms` and none of `others`. */
  readonly present: boolean;
}

/**
 * Any of the terms in the text column; with owner tokens, only in rows of those owners (FTS5 intersects the
 * posting lists, so a few owners' rows are found without scoring everyone else's). With `others`, rows holding (or
 * not holding) one of those words as well: their phrases follow the terms', so bm25() adds a row's per-word parts
 * in the same order as the expression of `[...terms, ...others.terms]` and gives the same score, bit for bit.
 */
export function matchExpression(
  terms: readonly string[],
  ownerIds: readonly string[] | null,
  others?: OtherTerms,
): string {
  const column = (words: readonly string[]) => `text : (${words.map(quoteFts).join(' OR ')})`;
  let text = column(terms);
  if (others && others.terms.length > 0)
    text = `(${text} ${others.present ? 'AND' : 'NOT'} ${column(others.terms)})`;
  if (!ownerIds) return text;
  return `${text} AND owner : (${ownerIds.map((id) => quoteFts(ownerToken(id))).join(' OR ')})`;
}
