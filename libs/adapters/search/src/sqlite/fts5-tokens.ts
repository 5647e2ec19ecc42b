// FTS5's own tokens of a text (unicode61, remove_diacritics 2, as the index's `__fts` table uses), for the in-memory
// BM25 index (bm25-memory.ts), which must count exactly what bm25() counts. The text is cut at ASCII characters that
// are not letters or digits: unicode61 separates at every one of them, so no token spans two pieces. A piece of
// ASCII letters and digits alone is one token, lower-cased (the tokenizer does nothing else to ASCII). A piece with
// any other character is tokenized by FTS5 itself, in a temporary table of the same connection (its fts5vocab
// `instance` view lists the tokens), and remembered: which characters are separators, how they fold and which marks
// are dropped follow SQLite's own Unicode tables, never an approximation of them.
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** FTS5_MAX_TOKEN_SIZE (fts5Int.h): longer tokens are cut to this many bytes before they are indexed. */
const MAX_TOKEN_BYTES = 32_768;
/** Pieces remembered with their tokens; the memory is cleared when it holds this many. */
const MAX_REMEMBERED = 200_000;

const isAsciiWordChar = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/** The pieces of a text: runs of ASCII letters and digits or of any non-ASCII character, and whether pure ASCII. */
function pieces(text: string, each: (piece: string, ascii: boolean) => void): void {
  const length = text.length;
  let i = 0;
  while (i < length) {
    let code = text.charCodeAt(i);
    while (code < 128 && !isAsciiWordChar(code)) {
      if (++i >= length) return;
      code = text.charCodeAt(i);
    }
    const start = i;
    let ascii = true;
    while (i < length && (code >= 128 || isAsciiWordChar(code))) {
      if (code >= 128) ascii = false;
      code = text.charCodeAt(++i);
    }
    each(text.slice(start, i), ascii);
  }
}

export class Fts5Tokens {
  private readonly remembered = new Map<string, readonly string[]>();
  private statements: { clear: StatementSync; insert: StatementSync; read: StatementSync } | null = null;

  constructor(private readonly db: DatabaseSync) {}

  /** Calls `each` with every token of the text in order, as the index's FTS5 table counts them (after learn). */
  forEach(text: string, each: (token: string) => void): void {
    pieces(text, (piece, ascii) => {
      if (ascii) each(asciiToken(piece));
      else {
        // Learnt before, unless the memory was cleared meanwhile.
        if (!this.remembered.has(piece)) this.learn([piece]);
        for (const token of this.remembered.get(piece)!) each(token);
      }
    });
  }

  /** The tokens FTS5 makes of one word (a query's word: more than one when FTS5 separates inside it). */
  tokens(word: string): readonly string[] {
    const found: string[] = [];
    this.learn([word]);
    this.forEach(word, (token) => found.push(token));
    return found;
  }

  /** Asks FTS5 for the tokens of every non-ASCII piece of the texts not remembered yet, in one batch. */
  learn(texts: readonly string[]): void {
    const unknown = new Set<string>();
    for (const text of texts)
      pieces(text, (piece, ascii) => {
        if (!ascii && !this.remembered.has(piece)) unknown.add(piece);
      });
    if (unknown.size === 0) return;
    if (this.remembered.size + unknown.size > MAX_REMEMBERED) this.remembered.clear();
    const asked = [...unknown];
    const statements = this.prepare();
    statements.clear.run();
    asked.forEach((piece, i) => statements.insert.run(i + 1, piece));
    const tokens = asked.map((): string[] => []);
    for (const row of statements.read.iterate() as Iterable<{ term: string; doc: number }>)
      tokens[row.doc - 1]!.push(row.term);
    statements.clear.run();
    asked.forEach((piece, i) => this.remembered.set(piece, tokens[i]!));
  }

  private prepare() {
    if (!this.statements) {
      // Temporary: only this connection sees it, and nothing is written to the index's file.
      this.db.exec(`
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_pieces USING fts5(
          piece, tokenize='unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.bm25_piece_tokens USING fts5vocab(temp, bm25_pieces, instance);
      `);
      this.statements = {
        clear: this.db.prepare('DELETE FROM temp.bm25_pieces'),
        insert: this.db.prepare('INSERT INTO temp.bm25_pieces (rowid, piece) VALUES (?, ?)'),
        read: this.db.prepare('SELECT term, doc FROM temp.bm25_piece_tokens ORDER BY doc, "offset"'),
      };
    }
    return this.statements;
  }
}

const asciiToken = (piece: string): string =>
  (piece.length > MAX_TOKEN_BYTES ? piece.slice(0, MAX_TOKEN_BYTES) : piece).toLowerCase();
