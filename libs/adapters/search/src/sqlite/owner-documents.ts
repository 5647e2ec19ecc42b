// The documents holding each owner's chunks, as the vector leg scans them (document row, first chunk rowid, chunk
// count, and the vector cache's key), remembered between searches until the index changes. For an Agent with 1,000
// documents, listing them through the owner index and building their cache keys cost about 1 ms of every search.
//
// A change is seen by a version made of this connection's own write count and SQLite's `PRAGMA data_version`, which
// moves whenever another connection (another process, a worker thread) commits. The version is read before the
// search's read transaction begins: a listing is kept under the version read before its snapshot, so it is reused
// only while nothing has been committed since, i.e. while it is still the index's current state.

/** One document of an owner, in the order the owner index lists them. */
export interface ScannedDocument {
  readonly docRowid: number;
  readonly first: number;
  readonly count: number;
  /** The vector cache's key of its decoded vectors (`<incarnation>:<docRowid>`). */
  readonly key: string;
}

export class OwnerDocuments {
  private version: string | null = null;
  private readonly lists = new Map<string, readonly ScannedDocument[]>();
  private writes = 0;

  /** @param dataVersion SQLite's `PRAGMA data_version` of the connection the searches read through. */
  constructor(private readonly dataVersion: () => number) {}

  /** This connection wrote (committed or not): every listing is made again. */
  written(): void {
    this.writes++;
  }

  /** The version to pass to `of`: read before the search's read transaction begins. */
  current(): string {
    return `${this.dataVersion()}:${this.writes}`;
  }

  /**
   * The owner's documents with chunks in the index `incarnation`, listed by `list` (in the search's snapshot) unless
   * the listing made at `version` is kept.
   */
  of(
    version: string,
    incarnation: string,
    ownerId: string,
    list: () => readonly { doc_rowid: number; first_chunk: number; chunk_count: number }[],
  ): readonly ScannedDocument[] {
    if (version !== this.version) {
      this.lists.clear();
      this.version = version;
    }
    const key = `${incarnation}\n${ownerId}`;
    let documents = this.lists.get(key);
    if (!documents) {
      documents = list().map((row) => ({
        docRowid: row.doc_rowid,
        first: row.first_chunk,
        count: row.chunk_count,
        key: `${incarnation}:${row.doc_rowid}`,
      }));
      this.lists.set(key, documents);
    }
    return documents;
  }
}
