// The text a stream has sent so far, kept to count its tokens when the upstream reports no usage (a stream cut
// short). Appending piece by piece with `+=` builds a rope: a cons cell plus a small string per delta, several
// times the text's own size (a 200,000-character answer streamed word by word held megabytes until the stream
// ended, which 50 stalled readers multiplied). Here every PIECES_PER_JOIN pieces are joined into one flat string, so
// a stream holds about its text, in blocks, plus a bounded tail of pieces; each character is copied at most twice.
const PIECES_PER_JOIN = 256;

export class StreamedText {
  private readonly blocks: string[] = [];
  private pieces: string[] = [];

  add(piece: string): void {
    if (piece.length === 0) return;
    this.pieces.push(piece);
    if (this.pieces.length >= PIECES_PER_JOIN) this.joinPieces();
  }

  /** Pieces not yet joined into a block (fewer than PIECES_PER_JOIN). */
  get pending(): number {
    return this.pieces.length;
  }

  text(): string {
    this.joinPieces();
    return this.blocks.join('');
  }

  private joinPieces(): void {
    if (this.pieces.length === 0) return;
    this.blocks.push(this.pieces.join(''));
    this.pieces = [];
  }
}
