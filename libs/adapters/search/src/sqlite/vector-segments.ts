// A document's embeddings in the search file, in segments of SEGMENT_VECTORS vectors: one row each in `<ix>__vectors`,
// keyed by the chunk id of the segment's first vector (a document's chunk ids are consecutive). A search that needs
// a few vectors' floats (the int8 pass's survivors, when the vector cache holds only the codes) reads the segments
// that hold them, not the whole document: SQLite reads a BLOB whole (0.3–0.4 ms for a document of 1,000 chunks of
// 384 dimensions), and a search at a million chunks with the codes alone resident read some hundred such documents
// back. Documents written before segments keep their vectors in their own row's BLOB (`<ix>__documents.vectors`;
// new rows leave it empty), and are read from there as before.
import type { SQLInputValue } from 'node:sqlite';
import { unpackVectors } from './packed-vectors.js';

/**
 * 16 vectors (24 KB at 384 dimensions). Measured at 100,000 chunks in documents of 1,000 with the codes alone
 * resident: the vector leg 25–26 ms reading whole documents, 4.1–4.2 with segments of 64, 2.6–2.8 of 16, 2.6 of
 * 8, 2.5 of 4 (the file 17 % larger), 1.8–1.9 with every float cached.
 */
export const SEGMENT_VECTORS = 16;

/** The statements the search index runs for these reads and writes (its own connection and transaction). */
export interface SegmentStatements {
  get<T>(sql: string, ...params: SQLInputValue[]): T | undefined;
  iterate<T>(sql: string, ...params: SQLInputValue[]): Iterable<T>;
  run(sql: string, ...params: SQLInputValue[]): unknown;
}

export const segmentsTable = (index: string): string => `"${index}__vectors"`;

export const createSegmentsTable = (index: string, ifNotExists = false): string =>
  `CREATE TABLE ${ifNotExists ? 'IF NOT EXISTS ' : ''}${segmentsTable(index)} (
     chunk INTEGER PRIMARY KEY, vectors BLOB NOT NULL) STRICT`;

/** Writes a document's packed vectors (`count` of them, its first chunk id `first`) as segments. */
export function writeSegments(
  statements: SegmentStatements,
  index: string,
  first: number,
  packed: Uint8Array,
  count: number,
  dimensions: number,
): void {
  const bytes = SEGMENT_VECTORS * dimensions * 4;
  for (let start = 0; start < count; start += SEGMENT_VECTORS)
    statements.run(
      `INSERT INTO ${segmentsTable(index)} (chunk, vectors) VALUES (?, ?)`,
      first + start,
      packed.subarray(
        start * dimensions * 4,
        Math.min(count * dimensions * 4, start * dimensions * 4 + bytes),
      ),
    );
}

/** Deletes the segments of the chunks `first` … `last` (the file's secure_delete overwrites their bytes). */
export function deleteSegments(
  statements: SegmentStatements,
  index: string,
  first: number,
  last: number,
): void {
  statements.run(`DELETE FROM ${segmentsTable(index)} WHERE chunk BETWEEN ? AND ?`, first, last);
}

/** Where a document's vectors are: in its row's own BLOB (written before segments, or no chunks), or in segments. */
interface Place {
  readonly inRow: boolean;
  readonly first: number;
  readonly count: number;
}

function placeOf(statements: SegmentStatements, documentsTable: string, docRowid: number): Place {
  const row = statements.get<{ bytes: number; first_chunk: number; chunk_count: number }>(
    `SELECT length(vectors) AS bytes, first_chunk, chunk_count FROM ${documentsTable} WHERE doc_rowid = ?`,
    docRowid,
  )!;
  return { inRow: row.bytes > 0 || row.chunk_count === 0, first: row.first_chunk, count: row.chunk_count };
}

const rowVectors = (statements: SegmentStatements, documentsTable: string, docRowid: number): Uint8Array =>
  statements.get<{ vectors: Uint8Array }>(
    `SELECT vectors FROM ${documentsTable} WHERE doc_rowid = ?`,
    docRowid,
  )!.vectors;

/** A document's segments in order, each with the chunk id of its first vector. */
const segmentsOf = (statements: SegmentStatements, index: string, { first, count }: Place) =>
  statements.iterate<{ chunk: number; vectors: Uint8Array }>(
    `SELECT chunk, vectors FROM ${segmentsTable(index)} WHERE chunk BETWEEN ? AND ? ORDER BY chunk`,
    first,
    first + count - 1,
  );

/** All of a document's packed vectors (its row's BLOB, or its segments end to end). */
export function documentVectors(
  statements: SegmentStatements,
  index: string,
  documentsTable: string,
  docRowid: number,
): Uint8Array {
  const place = placeOf(statements, documentsTable, docRowid);
  if (place.inRow) return rowVectors(statements, documentsTable, docRowid);
  return Buffer.concat([...segmentsOf(statements, index, place)].map((segment) => segment.vectors));
}

/**
 * A document's vectors piece by piece (row: the first vector's place in the document): its segments one at a time, or
 * its row's BLOB whole. For encoding its codes without holding every float of it at once.
 */
export function* vectorPieces(
  statements: SegmentStatements,
  index: string,
  documentsTable: string,
  docRowid: number,
): Generator<{ readonly row: number; readonly floats: Float32Array }> {
  const place = placeOf(statements, documentsTable, docRowid);
  if (place.inRow) {
    yield { row: 0, floats: unpackVectors(rowVectors(statements, documentsTable, docRowid)) };
    return;
  }
  for (const segment of segmentsOf(statements, index, place))
    yield { row: segment.chunk - place.first, floats: unpackVectors(segment.vectors) };
}

/**
 * A reader of single vectors of a document (row r: its chunk first + r) that reads only the segments they lie in,
 * each once; a document kept in its row's BLOB is read whole, once.
 */
export function vectorReader(
  statements: SegmentStatements,
  index: string,
  documentsTable: string,
  docRowid: number,
  first: number,
  dimensions: number,
): (row: number) => Float32Array {
  /** The document's vectors when its row holds them; null when they are in segments; undefined: not looked at yet. */
  let whole: Float32Array | null | undefined;
  const segments = new Map<number, Float32Array>();
  return (row) => {
    if (whole === undefined)
      whole = placeOf(statements, documentsTable, docRowid).inRow
        ? unpackVectors(rowVectors(statements, documentsTable, docRowid))
        : null;
    if (whole) return whole.subarray(row * dimensions, (row + 1) * dimensions);
    const segment = Math.floor(row / SEGMENT_VECTORS);
    let floats = segments.get(segment);
    if (!floats) {
      floats = unpackVectors(
        statements.get<{ vectors: Uint8Array }>(
          `SELECT vectors FROM ${segmentsTable(index)} WHERE chunk = ?`,
          first + segment * SEGMENT_VECTORS,
        )!.vectors,
      );
      segments.set(segment, floats);
    }
    const at = (row - segment * SEGMENT_VECTORS) * dimensions;
    return floats.subarray(at, at + dimensions);
  };
}
