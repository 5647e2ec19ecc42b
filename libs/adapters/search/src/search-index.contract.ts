// One contract for every SearchIndex adapter: SQLite always, Elasticsearch when ELASTICSEARCH_URL is set. Each test
// builds its own index (and alias) under a fresh name; embeddings have 8 dimensions chosen by hand, so "nearest"
// is known exactly.
import { randomUUID } from 'node:crypto';
import type { IndexedChunk, SearchHit, SearchIndex, SearchMode, SearchQuery } from './search-index.port.js';

const DIMENSIONS = 8;
const MODES: readonly SearchMode[] = ['hybrid', 'bm25', 'vector'];

const fresh = (prefix: string): string => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 16)}`;

/** A vector from (axis, weight) pairs. */
const vector = (...parts: (readonly [number, number])[]): number[] => {
  const values = new Array<number>(DIMENSIONS).fill(0);
  for (const [axis, weight] of parts) values[axis] = weight;
  return values;
};

interface ChunkSpec {
  readonly text: string;
  readonly embedding: number[];
  readonly tagIds?: string[];
  readonly sectionPath?: string[];
}

interface DocumentSpec {
  readonly documentId: string;
  readonly version: number;
  readonly chunks: IndexedChunk[];
}

/** A document of `ownerId` whose chunk ids are `<documentId>-v<version>-<n>`. */
function document(
  ownerId: string,
  specs: readonly ChunkSpec[],
  options: { documentId?: string; version?: number; name?: string } = {},
): DocumentSpec {
  const documentId = options.documentId ?? fresh('doc');
  const version = options.version ?? 1;
  let offset = 0;
  const chunks = specs.map((spec, n): IndexedChunk => {
    const start = offset;
    offset += spec.text.length + 1;
    return {
      chunkId: `${documentId}-v${version}-${n}`,
      documentId,
      version,
      ownerId,
      tagIds: spec.tagIds ?? [],
      sectionPath: spec.sectionPath ?? [],
      start,
      end: start + spec.text.length,
      text: spec.text,
      embedding: spec.embedding,
      documentName: options.name ?? `${documentId}.md`,
    };
  });
  return { documentId, version, chunks };
}

/** One chunk of a document, for tests that only need its owner, its text and (sometimes) its vector. */
export const testChunk = (
  ownerId: string,
  documentId: string,
  n: number,
  text: string,
  embedding: number[] = [1, 0, 0, 0],
): IndexedChunk => ({
  chunkId: `${documentId}-${n}`,
  documentId,
  version: 1,
  ownerId,
  tagIds: [],
  sectionPath: [],
  start: 0,
  end: text.length,
  text,
  embedding,
  documentName: `${documentId}.txt`,
});

export function searchIndexContract(adapter: string, open: () => Promise<SearchIndex>): void {
  describe(`SearchIndex contract: ${adapter}`, () => {
    let search: SearchIndex;
    let index: string;

    beforeAll(async () => {
      search = await open();
    });
    afterAll(async () => {
      await search.close();
    });
    beforeEach(async () => {
      index = fresh('chunks');
      await search.ensureIndex(index, { dimensions: DIMENSIONS });
    });
    afterEach(async () => {
      await search.dropIndex(index).catch(() => undefined);
    });

    const put = (...documents: DocumentSpec[]) =>
      Promise.all(documents.map((d) => search.upsertDocument(index, d.documentId, d.version, d.chunks)));
    const query = (overrides: Partial<SearchQuery> & Pick<SearchQuery, 'ownerIds'>): Promise<SearchHit[]> =>
      search.search(index, { text: '', embedding: [], limit: 10, ...overrides });
    const ids = (hits: readonly SearchHit[]): string[] => hits.map((hit) => hit.chunkId);

    it('finds a chunk by its words and returns its citation fields', async () => {
      const owner = fresh('agt');
      const doc = document(
        owner,
        [
          { text: 'Unrelated opening paragraph about the weather', embedding: vector([1, 1]) },
          {
            text: 'Configure the reverse proxy with a TLS certificate',
            embedding: vector([2, 1]),
            sectionPath: ['Install', 'Linux'],
          },
        ],
        { name: 'Operations Guide.pdf' },
      );
      await put(doc);
      const hits = await query({ text: 'proxy certificate', ownerIds: [owner], mode: 'bm25' });
      expect(hits).toHaveLength(1);
      expect(hits[0]).toEqual({
        chunkId: doc.chunks[1]!.chunkId,
        documentId: doc.documentId,
        documentName: 'Operations Guide.pdf',
        sectionPath: ['Install', 'Linux'],
        start: doc.chunks[1]!.start,
        end: doc.chunks[1]!.end,
        text: 'Configure the reverse proxy with a TLS certificate',
        score: expect.any(Number),
        bm25Rank: 1,
        vectorRank: null,
      });
      expect(hits[0]!.score).toBeGreaterThan(0);
      expect(await query({ text: 'Certificate', ownerIds: [owner], mode: 'bm25' })).toHaveLength(1);
      expect(await query({ text: 'submarine', ownerIds: [owner], mode: 'bm25' })).toEqual([]);
    });

    it('matches words without their diacritics and case', async () => {
      const owner = fresh('agt');
      const doc = document(owner, [
        { text: 'Crème brûlée, a classic French dessert', embedding: vector([0, 1]) },
        { text: 'Bread and butter', embedding: vector([1, 1]) },
      ]);
      await put(doc);
      for (const text of ['creme brulee', 'CRÈME', 'Brûlée']) {
        expect(ids(await query({ text, ownerIds: [owner], mode: 'bm25' }))).toEqual([doc.chunks[0]!.chunkId]);
      }
    });

    it('finds the nearest chunks by cosine similarity in vector mode, whatever the vectors’ lengths', async () => {
      const owner = fresh('agt');
      const doc = document(owner, [
        { text: 'far', embedding: vector([0, -1]) },
        { text: 'near', embedding: vector([0, 5], [1, 0.5]) },
        { text: 'middle', embedding: vector([0, 0.1], [1, 0.1]) },
        { text: 'orthogonal', embedding: vector([2, 3]) },
      ]);
      await put(doc);
      const hits = await query({ embedding: vector([0, 0.01]), ownerIds: [owner], mode: 'vector' });
      expect(hits.map((hit) => hit.text)).toEqual(['near', 'middle', 'orthogonal', 'far']);
      expect(hits.map((hit) => hit.vectorRank)).toEqual([1, 2, 3, 4]);
      expect(hits.every((hit) => hit.bm25Rank === null)).toBe(true);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(
        await query({ embedding: vector([0, 1]), ownerIds: [owner], mode: 'vector', limit: 2 }),
      ).toHaveLength(2);
    });

    it('ranks first in hybrid mode a chunk that both legs rank high', async () => {
      const owner = fresh('agt');
      const doc = document(owner, [
        { text: 'alpha alpha alpha', embedding: vector([3, 1]) },
        { text: 'alpha report', embedding: vector([0, 1], [1, 0.1]) },
        { text: 'beta gamma', embedding: vector([0, 1], [1, 0.3]) },
        { text: 'delta', embedding: vector([0, -1]) },
      ]);
      await put(doc);
      const [keywordOnly, both, vectorOnly] = doc.chunks.map((chunk) => chunk.chunkId);
      const text = 'alpha';
      const embedding = vector([0, 1]);
      expect(ids(await query({ text, embedding, ownerIds: [owner], mode: 'bm25' }))).toEqual([
        keywordOnly,
        both,
      ]);
      expect(ids(await query({ text, embedding, ownerIds: [owner], mode: 'vector' })).slice(0, 2)).toEqual([
        both,
        vectorOnly,
      ]);
      const hybrid = await query({ text, embedding, ownerIds: [owner] });
      expect(ids(hybrid).slice(0, 2)).toEqual([both, keywordOnly]);
      expect(hybrid[0]).toMatchObject({ bm25Rank: 2, vectorRank: 1 });
      expect(hybrid[1]).toMatchObject({ bm25Rank: 1, vectorRank: 3 });
      expect(hybrid.find((hit) => hit.chunkId === vectorOnly)).toMatchObject({
        bm25Rank: null,
        vectorRank: 2,
      });
      expect(hybrid.map((hit) => hit.score)).toEqual(
        [...hybrid.map((hit) => hit.score)].sort((a, b) => b - a),
      );
      // The embedding may come as a promise (what needs only the text starts meanwhile): the same hits.
      expect(await query({ text, embedding: Promise.resolve(embedding), ownerIds: [owner] })).toEqual(hybrid);
      // One leg empty: hybrid is the other leg.
      expect(ids(await query({ text: '', embedding, ownerIds: [owner] }))).toEqual(
        ids(await query({ embedding, ownerIds: [owner], mode: 'vector' })),
      );
      expect(ids(await query({ text, embedding: [], ownerIds: [owner] }))).toEqual([keywordOnly, both]);
    });

    it('filters by tags: any of the given tags, in every mode', async () => {
      const owner = fresh('agt');
      const [red, blue] = [fresh('tag'), fresh('tag')];
      const docs = [
        document(owner, [{ text: 'shared words one', embedding: vector([0, 1]), tagIds: [red] }]),
        document(owner, [
          { text: 'shared words two', embedding: vector([0, 1], [1, 0.2]), tagIds: [blue, red] },
        ]),
        document(owner, [
          { text: 'shared words three', embedding: vector([0, 1], [1, 0.1]), tagIds: [blue] },
        ]),
        document(owner, [{ text: 'shared words four', embedding: vector([0, 1], [1, 0.05]) }]),
        // Tags are per chunk: of this document only the second chunk carries red.
        document(owner, [
          { text: 'shared words five', embedding: vector([0, 1]) },
          { text: 'shared words six', embedding: vector([0, 1], [2, 0.5]), tagIds: [red] },
        ]),
      ];
      await put(...docs);
      const [one, two, three, four, five] = docs.map((d) => d.chunks[0]!.chunkId);
      const six = docs[4]!.chunks[1]!.chunkId;
      const base = { text: 'shared words', embedding: vector([0, 1]), ownerIds: [owner] };
      for (const mode of MODES) {
        const found = async (tagIds?: string[]) => ids(await query({ ...base, mode, tagIds })).sort();
        const everything = [one, two, three, four, five, six].sort();
        expect(await found([red])).toEqual([one, two, six].sort());
        expect(await found([blue])).toEqual([two, three].sort());
        expect(await found([red, blue])).toEqual([one, two, three, six].sort());
        expect(await found([fresh('tag')])).toEqual([]);
        expect(await found([])).toEqual(everything);
        expect(await found(undefined)).toEqual(everything);
      }
      // The tag filter runs inside the vector leg: the best tagged chunk is found even when untagged ones are nearer.
      const crowd = document(
        owner,
        Array.from({ length: 80 }, (_, n) => ({ text: `crowd ${n}`, embedding: vector([0, 1]) })),
      );
      await put(crowd);
      expect(ids(await query({ ...base, mode: 'vector', tagIds: [blue], limit: 1 }))).toEqual([three]);
    });

    it('never returns a chunk of an owner outside ownerIds, even when it matches best and the limit is large', async () => {
      const [agentA, agentB, space, global] = [fresh('agt'), fresh('agt'), fresh('spc'), 'global'];
      // A's chunks match the query perfectly in both legs; there are more of them than either leg retrieves.
      const strong = document(
        agentA,
        Array.from({ length: 120 }, (_, n) => ({
          text: `quantum entanglement experiment quantum entanglement ${n}`,
          embedding: vector([0, 1]),
        })),
      );
      const weakB = document(agentB, [
        {
          text: 'a short note that mentions quantum once among many other words',
          embedding: vector([0, 0.2], [1, 1]),
        },
      ]);
      const spaceDoc = document(space, [
        { text: 'entanglement in the space handbook', embedding: vector([2, 1]) },
      ]);
      // Owner ids that share a prefix, or carry quotes and spaces, are owners of their own.
      const prefixOfA = `${agentA}0`;
      const oddOwner = `${agentA} "OR" global`;
      const prefixDoc = document(prefixOfA, [{ text: 'quantum prefix owner', embedding: vector([0, 1]) }]);
      const oddDoc = document(oddOwner, [{ text: 'quantum odd owner', embedding: vector([0, 1]) }]);
      const globalDoc = document(global, [{ text: 'quantum global note', embedding: vector([3, 1]) }]);
      await put(strong, weakB, spaceDoc, prefixDoc, oddDoc, globalDoc);
      const ofA = new Set(strong.chunks.map((chunk) => chunk.chunkId));
      const text = 'quantum entanglement';
      const embedding = vector([0, 1]);

      for (const mode of MODES) {
        const onlyB = await query({ text, embedding, ownerIds: [agentB], mode, limit: 1000 });
        expect(ids(onlyB)).toEqual([weakB.chunks[0]!.chunkId]);
        // Many other (unknown) owners beside B change nothing.
        const crowd = [agentB, ...Array.from({ length: 30 }, () => fresh('agt'))];
        expect(ids(await query({ text, embedding, ownerIds: crowd, mode, limit: 1000 }))).toEqual(ids(onlyB));
        // Not starved: B's chunk is found with a small limit although A has 120 better ones.
        expect(ids(await query({ text, embedding, ownerIds: [agentB], mode, limit: 1 }))).toEqual(ids(onlyB));
        const agentView = await query({
          text,
          embedding,
          ownerIds: [agentB, space, global],
          mode,
          limit: 1000,
        });
        expect(agentView.some((hit) => ofA.has(hit.chunkId))).toBe(false);
        expect(new Set(agentView.map((hit) => hit.documentId))).toEqual(
          new Set([weakB.documentId, spaceDoc.documentId, globalDoc.documentId]),
        );
        for (const owner of [prefixOfA, oddOwner]) {
          const hits = await query({ text, embedding, ownerIds: [owner], mode, limit: 1000 });
          expect(hits.map((hit) => hit.documentId)).toEqual([
            owner === prefixOfA ? prefixDoc.documentId : oddDoc.documentId,
          ]);
        }
        expect(await query({ text, embedding, ownerIds: [], mode, limit: 1000 })).toEqual([]);
        const asA = await query({ text, embedding, ownerIds: [agentA], mode, limit: 1000 });
        expect(asA.length).toBeGreaterThan(0);
        expect(asA.every((hit) => ofA.has(hit.chunkId))).toBe(true);
      }
    });

    it('replaces every chunk of a document with the new version’s, and ignores an older version', async () => {
      const owner = fresh('agt');
      const documentId = fresh('doc');
      const v1 = document(
        owner,
        [
          { text: 'original wording first', embedding: vector([0, 1]) },
          { text: 'original wording second', embedding: vector([1, 1]) },
          { text: 'original wording third', embedding: vector([2, 1]) },
        ],
        { documentId, version: 1, name: 'v1.md' },
      );
      const v2 = document(owner, [{ text: 'revised wording only', embedding: vector([3, 1]) }], {
        documentId,
        version: 2,
        name: 'v2.md',
      });
      await put(v1);
      expect(await search.stats(index)).toEqual({ chunks: 3, documents: 1 });
      await put(v2);
      expect(await search.stats(index)).toEqual({ chunks: 1, documents: 1 });
      expect(await query({ text: 'original', ownerIds: [owner], mode: 'bm25' })).toEqual([]);
      const hits = await query({ text: 'wording', embedding: vector([0, 1]), ownerIds: [owner] });
      expect(hits.map((hit) => [hit.chunkId, hit.documentName])).toEqual([[v2.chunks[0]!.chunkId, 'v2.md']]);

      // A late writer of version 1 changes nothing.
      await put(v1);
      expect(ids(await query({ text: 'wording', ownerIds: [owner], mode: 'bm25' }))).toEqual([
        v2.chunks[0]!.chunkId,
      ]);
      expect(await search.stats(index)).toEqual({ chunks: 1, documents: 1 });

      // The same version again replaces it (a tag was attached), and is idempotent.
      const tag = fresh('tag');
      const v2Tagged = document(
        owner,
        [{ text: 'revised wording only', embedding: vector([3, 1]), tagIds: [tag] }],
        {
          documentId,
          version: 2,
        },
      );
      await put(v2Tagged);
      await put(v2Tagged);
      expect(ids(await query({ text: 'wording', ownerIds: [owner], tagIds: [tag], mode: 'bm25' }))).toEqual([
        v2.chunks[0]!.chunkId,
      ]);
      expect(await search.stats(index)).toEqual({ chunks: 1, documents: 1 });

      // A version without chunks leaves none.
      await put(document(owner, [], { documentId, version: 3 }));
      expect(await query({ text: 'wording', embedding: vector([3, 1]), ownerIds: [owner] })).toEqual([]);
      expect(await search.stats(index)).toEqual({ chunks: 0, documents: 0 });
    });

    it('shows a search the old version or the new one, never a mix, while versions are written', async () => {
      const owner = fresh('agt');
      const documentId = fresh('doc');
      const versions = [3, 5, 2, 6, 4].map((size, i) =>
        document(
          owner,
          Array.from({ length: size }, (_, n) => ({
            text: `release notes part ${n}`,
            embedding: vector([n % 8, 1]),
          })),
          { documentId, version: i + 1 },
        ),
      );
      const chunkIdsOf = (v: DocumentSpec): string =>
        v.chunks
          .map((chunk) => chunk.chunkId)
          .sort()
          .join();
      const wholeVersions = new Set(versions.map(chunkIdsOf));
      await put(versions[0]!);
      const seen: string[] = [];
      const searches = async () => {
        for (let round = 0; round < 10; round++) {
          for (const mode of MODES) {
            const hits = await query({
              text: 'release notes',
              embedding: vector([0, 1]),
              ownerIds: [owner],
              mode,
              limit: 50,
            });
            seen.push(ids(hits).sort().join());
          }
        }
      };
      await Promise.all([
        searches(),
        (async () => {
          for (const version of versions.slice(1)) await put(version);
        })(),
        searches(),
      ]);
      expect(seen).toHaveLength(60);
      for (const set of seen) expect(wholeVersions.has(set)).toBe(true);
      const final = await query({
        text: 'release notes',
        embedding: vector([0, 1]),
        ownerIds: [owner],
        limit: 50,
      });
      expect(ids(final).sort().join()).toBe(chunkIdsOf(versions[4]!));
      expect(await search.stats(index)).toEqual({ chunks: 4, documents: 1 });
    });

    it('deletes every chunk of a document, and deleting an absent document is no error', async () => {
      const owner = fresh('agt');
      const keep = document(owner, [{ text: 'kept document text', embedding: vector([0, 1]) }]);
      const drop = document(owner, [
        { text: 'dropped document text', embedding: vector([0, 1]) },
        { text: 'dropped document more', embedding: vector([1, 1]) },
      ]);
      await put(keep, drop);
      expect(await search.stats(index)).toEqual({ chunks: 3, documents: 2 });
      await search.deleteDocument(index, drop.documentId);
      await search.deleteDocument(index, drop.documentId);
      await search.deleteDocument(index, fresh('doc'));
      for (const mode of MODES) {
        const hits = await query({ text: 'document', embedding: vector([0, 1]), ownerIds: [owner], mode });
        expect(hits.map((hit) => hit.documentId)).toEqual([keep.documentId]);
      }
      expect(await search.stats(index)).toEqual({ chunks: 1, documents: 1 });
      // Deleted, it can come back at any version.
      await put(
        document(owner, [{ text: 'returned', embedding: vector([0, 1]) }], { documentId: drop.documentId }),
      );
      expect(await search.stats(index)).toEqual({ chunks: 2, documents: 2 });
    });

    it('never returns a chunk deleted or replaced after an earlier search saw it, in any mode', async () => {
      const [owner, other] = [fresh('agt'), fresh('spc')];
      const many = (n: number, word: string) =>
        Array.from({ length: n }, (_, i) => ({
          text: `${word} shared ${i}`,
          embedding: vector([0, 1], [1, i / n], [2, 0.1]),
        }));
      const gone = document(owner, many(6, 'gone'));
      const replaced = document(owner, many(4, 'older'));
      const stays = document(owner, many(3, 'stays'));
      const foreign = document(other, many(5, 'foreign'));
      await put(gone, replaced, stays, foreign);
      for (const mode of MODES) {
        const hits = await query({
          text: 'shared',
          embedding: vector([0, 1], [2, 0.1]),
          ownerIds: [owner],
          limit: 50,
          mode,
        });
        expect(hits).toHaveLength(13);
      }
      await search.deleteDocument(index, gone.documentId);
      await put(document(owner, many(2, 'newer'), { documentId: replaced.documentId, version: 2 }));
      for (const mode of MODES) {
        const hits = await query({
          text: 'shared',
          embedding: vector([0, 1], [2, 0.1]),
          ownerIds: [owner],
          limit: 50,
          mode,
        });
        expect(hits.map((hit) => hit.documentId).sort()).toEqual(
          [...Array(2).fill(replaced.documentId), ...Array(3).fill(stays.documentId)].sort(),
        );
        expect(hits.every((hit) => !hit.text.startsWith('older') && !hit.text.startsWith('gone'))).toBe(true);
        const both = await query({
          text: 'shared',
          embedding: vector([0, 1], [2, 0.1]),
          ownerIds: [owner, other],
          limit: 50,
          mode,
        });
        expect(both).toHaveLength(10);
        expect(both.filter((hit) => hit.documentId === foreign.documentId)).toHaveLength(5);
      }
    });

    it('replaces the tags of every chunk of a document at once, in every mode', async () => {
      const owner = fresh('agt');
      const [red, blue, green] = [fresh('tag'), fresh('tag'), fresh('tag')];
      const retagged = document(owner, [
        { text: 'tagged words one', embedding: vector([0, 1]), tagIds: [red] },
        { text: 'tagged words two', embedding: vector([0, 1], [1, 0.2]), tagIds: [red, blue] },
        { text: 'tagged words three', embedding: vector([0, 1], [2, 0.2]) },
      ]);
      const untouched = document(owner, [
        { text: 'tagged words four', embedding: vector([0, 1]), tagIds: [red] },
      ]);
      await put(retagged, untouched);
      const chunksOf = (d: DocumentSpec): string[] => d.chunks.map((chunk) => chunk.chunkId).sort();
      const base = { text: 'tagged words', embedding: vector([0, 1]), ownerIds: [owner], limit: 50 };
      const found = async (mode: SearchMode, tagIds?: string[]) =>
        ids(await query({ ...base, mode, tagIds })).sort();

      // Repeats count once; the chunk that carried two tags and the one that carried none end up alike.
      await search.setDocumentTags(index, retagged.documentId, [green, blue, green]);
      for (const mode of MODES) {
        expect(await found(mode, [red])).toEqual(chunksOf(untouched));
        expect(await found(mode, [green])).toEqual(chunksOf(retagged));
        expect(await found(mode, [blue])).toEqual(chunksOf(retagged));
        expect(await found(mode, [red, green])).toEqual(
          [...chunksOf(retagged), ...chunksOf(untouched)].sort(),
        );
        expect(await found(mode)).toEqual([...chunksOf(retagged), ...chunksOf(untouched)].sort());
      }
      expect(await search.stats(index)).toEqual({ chunks: 4, documents: 2 });
      // Setting the same tags again changes nothing.
      await search.setDocumentTags(index, retagged.documentId, [blue, green]);
      for (const mode of MODES) expect(await found(mode, [green])).toEqual(chunksOf(retagged));

      // An empty list leaves the document without tags: no tag filter finds it, a search without one does.
      await search.setDocumentTags(index, retagged.documentId, []);
      for (const mode of MODES) {
        expect(await found(mode, [red, blue, green])).toEqual(chunksOf(untouched));
        expect(await found(mode, [])).toEqual([...chunksOf(retagged), ...chunksOf(untouched)].sort());
      }

      // The tags belong to whatever version is indexed; an upsert afterwards sets its chunks' own tags.
      const v2 = document(
        owner,
        [{ text: 'tagged words revised', embedding: vector([0, 1]), tagIds: [red] }],
        {
          documentId: retagged.documentId,
          version: 2,
        },
      );
      await put(v2);
      await search.setDocumentTags(index, retagged.documentId, [green]);
      for (const mode of MODES) expect(await found(mode, [green])).toEqual(chunksOf(v2));
      await put(
        document(owner, [{ text: 'tagged words revised', embedding: vector([0, 1]), tagIds: [blue] }], {
          documentId: retagged.documentId,
          version: 3,
        }),
      );
      for (const mode of MODES) {
        expect(await found(mode, [green])).toEqual([]);
        expect((await query({ ...base, mode, tagIds: [blue] })).map((hit) => hit.documentId)).toEqual([
          retagged.documentId,
        ]);
      }
    });

    it('sets no tags on a document without chunks, and checks its arguments', async () => {
      const owner = fresh('agt');
      const tag = fresh('tag');
      const kept = document(owner, [{ text: 'kept words', embedding: vector([0, 1]), tagIds: [tag] }]);
      await put(kept);
      const tagged = (mode: SearchMode) =>
        query({ text: 'words', embedding: vector([0, 1]), ownerIds: [owner], tagIds: [tag], mode });

      // Unknown, deleted, and indexed without chunks: nothing happens, and nothing appears later.
      const unknown = fresh('doc');
      await search.setDocumentTags(index, unknown, [tag]);
      const deleted = document(owner, [{ text: 'deleted words', embedding: vector([0, 1]) }]);
      await put(deleted);
      await search.deleteDocument(index, deleted.documentId);
      await search.setDocumentTags(index, deleted.documentId, [tag]);
      const empty = document(owner, [], { version: 1 });
      await put(empty);
      await search.setDocumentTags(index, empty.documentId, [tag]);
      expect(await search.stats(index)).toEqual({ chunks: 1, documents: 1 });
      await put(
        document(owner, [{ text: 'late words', embedding: vector([0, 1]) }], { documentId: unknown }),
        document(owner, [{ text: 'back words', embedding: vector([0, 1]) }], {
          documentId: deleted.documentId,
          version: 2,
        }),
      );
      for (const mode of MODES) expect(ids(await tagged(mode))).toEqual([kept.chunks[0]!.chunkId]);

      await expect(search.setDocumentTags(fresh('chunks'), kept.documentId, [tag])).rejects.toMatchObject({
        kind: 'not_found',
      });
      await expect(search.setDocumentTags('Not An Index', kept.documentId, [tag])).rejects.toMatchObject({
        kind: 'validation',
      });
      const refused: unknown[][] = [[''], [tag, ''], [42], [null], [undefined]];
      for (const tagIds of refused) {
        await expect(
          search.setDocumentTags(index, kept.documentId, tagIds as string[]),
        ).rejects.toMatchObject({ kind: 'validation' });
      }
      await expect(
        search.setDocumentTags(index, kept.documentId, 'tag' as unknown as string[]),
      ).rejects.toMatchObject({ kind: 'validation' });
      await expect(search.setDocumentTags(index, '', [tag])).rejects.toMatchObject({ kind: 'validation' });
      // The upsert path refuses the same tag ids.
      const badTag = document(owner, [{ text: 'bad tag', embedding: vector([0, 1]), tagIds: [''] }], {
        documentId: kept.documentId,
        version: 2,
      });
      await expect(put(badTag)).rejects.toMatchObject({ kind: 'validation' });
      // A refused call leaves the tags as they were.
      for (const mode of MODES) expect(ids(await tagged(mode))).toEqual([kept.chunks[0]!.chunkId]);
      expect(await search.stats(index)).toEqual({ chunks: 3, documents: 3 });
    });

    it('changes the tags of that document only: other documents, owners and indexes keep theirs', async () => {
      const [agentA, agentB] = [fresh('agt'), fresh('agt')];
      const [shared, moved] = [fresh('tag'), fresh('tag')];
      const documentId = fresh('doc');
      const ofA = document(
        agentA,
        [{ text: 'isolated words', embedding: vector([0, 1]), tagIds: [shared] }],
        {
          documentId,
        },
      );
      const ofB = document(agentB, [
        { text: 'isolated words', embedding: vector([0, 1]), tagIds: [shared] },
        { text: 'isolated words more', embedding: vector([0, 1]), tagIds: [shared] },
      ]);
      const other = fresh('chunks');
      await search.ensureIndex(other, { dimensions: DIMENSIONS });
      try {
        await put(ofA, ofB);
        // The same document id in another index.
        await search.upsertDocument(other, documentId, ofA.version, ofA.chunks);
        await search.setDocumentTags(index, documentId, [moved]);
        for (const mode of MODES) {
          const base = { text: 'isolated words', embedding: vector([0, 1]), mode, limit: 50 };
          // B never sees A's retagged chunk, whatever the tags asked for.
          for (const tagIds of [[moved], [shared], [moved, shared], undefined]) {
            const asB = await query({ ...base, ownerIds: [agentB], tagIds });
            expect(asB.every((hit) => hit.documentId === ofB.documentId)).toBe(true);
            expect(asB).toHaveLength(tagIds?.length === 1 && tagIds[0] === moved ? 0 : 2);
          }
          expect(ids(await query({ ...base, ownerIds: [agentA], tagIds: [moved] }))).toEqual([
            ofA.chunks[0]!.chunkId,
          ]);
          expect(await query({ ...base, ownerIds: [agentA], tagIds: [shared] })).toEqual([]);
          const inOther = await search.search(other, { ...base, ownerIds: [agentA], tagIds: [shared] });
          expect(ids(inOther)).toEqual([ofA.chunks[0]!.chunkId]);
          expect(await search.search(other, { ...base, ownerIds: [agentA], tagIds: [moved] })).toEqual([]);
        }
      } finally {
        await search.dropIndex(other);
      }
    });

    it('shows a search the old tags or the new ones on all of a document’s chunks, never a mix', async () => {
      const owner = fresh('agt');
      const [red, blue] = [fresh('tag'), fresh('tag')];
      const doc = document(
        owner,
        Array.from({ length: 12 }, (_, n) => ({
          text: `moving tags part ${n}`,
          embedding: vector([n % 8, 1]),
          tagIds: [red],
        })),
      );
      await put(doc);
      const whole = doc.chunks
        .map((chunk) => chunk.chunkId)
        .sort()
        .join();
      const seen: string[] = [];
      const searches = async () => {
        for (let round = 0; round < 10; round++) {
          for (const mode of MODES) {
            for (const tag of [red, blue]) {
              const hits = await query({
                text: 'moving tags',
                embedding: vector([0, 1]),
                ownerIds: [owner],
                tagIds: [tag],
                mode,
                limit: 50,
              });
              seen.push(ids(hits).sort().join());
            }
          }
        }
      };
      await Promise.all([
        searches(),
        (async () => {
          for (let n = 0; n < 20; n++)
            await search.setDocumentTags(index, doc.documentId, [n % 2 ? red : blue]);
        })(),
        searches(),
      ]);
      expect(seen).toHaveLength(120);
      for (const set of seen) expect(['', whole]).toContain(set);
      // The last write (red) stands.
      for (const mode of MODES) {
        const base = { text: 'moving tags', embedding: vector([0, 1]), ownerIds: [owner], mode, limit: 50 };
        expect(
          ids(await query({ ...base, tagIds: [red] }))
            .sort()
            .join(),
        ).toBe(whole);
        expect(await query({ ...base, tagIds: [blue] })).toEqual([]);
      }
    });

    it('never throws on hostile query text, in any mode', async () => {
      const owner = fresh('agt');
      await put(
        document(owner, [
          { text: 'alpha beta gamma "quoted" (parens) AND OR NOT NEAR star*', embedding: vector([0, 1]) },
          { text: 'ordinary text', embedding: vector([1, 1]) },
        ]),
      );
      const hostile = [
        '',
        ' ',
        '"',
        '""',
        '"unterminated',
        "'",
        '(',
        ')',
        '(((((',
        '*',
        'alpha*',
        '^alpha',
        '-alpha +beta',
        'AND',
        'OR',
        'NOT',
        'NEAR',
        'alpha AND OR NOT NEAR beta',
        'NEAR(alpha beta, 2)',
        'NEAR/3',
        'alpha" OR "1"="1',
        'text : alpha',
        'owner : global',
        '{text owner} : alpha',
        'alpha:beta',
        '\\',
        '\u0000',
        '%_',
        "'; DROP TABLE chunks; --",
        '😀 emoji 👍',
        '中文 검색 العربية עברית',
        'e\u0301\u0301',
        '\uD800 lone surrogate',
        '@#$%^&*[]{}<>?/|~`',
        'a'.repeat(10_000),
        'word '.repeat(2_000),
        Array.from({ length: 5_000 }, (_, n) => `w${n}`).join(' '),
      ];
      for (const text of hostile) {
        for (const mode of MODES) {
          const hits = await query({ text, embedding: vector([0, 1]), ownerIds: [owner], mode, limit: 5 });
          expect(Array.isArray(hits)).toBe(true);
        }
      }
      // Operators are plain words: 'NOT' finds the chunk holding the word rather than excluding anything.
      expect(await query({ text: 'alpha NOT beta', ownerIds: [owner], mode: 'bm25' })).toHaveLength(1);
      expect(await query({ text: 'NEAR', ownerIds: [owner], mode: 'bm25' })).toHaveLength(1);
      expect(await query({ text: '"quoted"', ownerIds: [owner], mode: 'bm25' })).toHaveLength(1);
    });

    it('checks names, dimensions and embeddings, and leaves the index as it was after a refused write', async () => {
      const owner = fresh('agt');
      for (const name of ['Chunks', '1chunks', 'chunks-v1', '', 'a'.repeat(64), 'chunks v1', '"x"']) {
        await expect(search.ensureIndex(name, { dimensions: DIMENSIONS })).rejects.toMatchObject({
          kind: 'validation',
        });
      }
      for (const dimensions of [0, -1, 1.5, 100_000]) {
        await expect(search.ensureIndex(fresh('chunks'), { dimensions })).rejects.toMatchObject({
          kind: 'validation',
        });
      }
      await search.ensureIndex(index, { dimensions: DIMENSIONS });
      await expect(search.ensureIndex(index, { dimensions: DIMENSIONS + 1 })).rejects.toMatchObject({
        kind: 'conflict',
      });
      const missing = fresh('chunks');
      await expect(
        search.search(missing, { text: 'x', embedding: [], ownerIds: [owner], limit: 5 }),
      ).rejects.toMatchObject({ kind: 'not_found' });
      await expect(search.upsertDocument(missing, 'd', 1, [])).rejects.toMatchObject({ kind: 'not_found' });
      await expect(search.stats(missing)).rejects.toMatchObject({ kind: 'not_found' });

      const good = document(owner, [{ text: 'good words', embedding: vector([0, 1]) }]);
      await put(good);
      const wrongSize = document(owner, [{ text: 'bad words', embedding: [1, 2, 3] }], {
        documentId: good.documentId,
        version: 2,
      });
      await expect(put(wrongSize)).rejects.toMatchObject({ kind: 'validation' });
      const otherDocument = document(owner, [{ text: 'bad words', embedding: vector([0, 1]) }]);
      await expect(
        search.upsertDocument(index, good.documentId, 2, otherDocument.chunks),
      ).rejects.toMatchObject({
        kind: 'validation',
      });
      const twoOwners = document(owner, [
        { text: 'one', embedding: vector([0, 1]) },
        { text: 'two', embedding: vector([0, 1]) },
      ]);
      twoOwners.chunks[1] = { ...twoOwners.chunks[1]!, ownerId: fresh('agt') };
      await expect(put(twoOwners)).rejects.toMatchObject({ kind: 'validation' });
      const notFinite = document(owner, [{ text: 'nan', embedding: vector([0, Number.NaN]) }]);
      await expect(put(notFinite)).rejects.toMatchObject({ kind: 'validation' });
      expect(ids(await query({ text: 'words', ownerIds: [owner], mode: 'bm25' }))).toEqual([
        good.chunks[0]!.chunkId,
      ]);
      expect(await search.stats(index)).toEqual({ chunks: 1, documents: 1 });

      await expect(query({ embedding: [1, 2], ownerIds: [owner], mode: 'vector' })).rejects.toMatchObject({
        kind: 'validation',
      });
      await expect(query({ text: 'words', embedding: [1, 2], ownerIds: [owner] })).rejects.toMatchObject({
        kind: 'validation',
      });
      // BM25 alone ignores the embedding; a zero or empty embedding finds nothing by vector.
      expect(await query({ text: 'words', embedding: [1, 2], ownerIds: [owner], mode: 'bm25' })).toHaveLength(
        1,
      );
      expect(await query({ embedding: vector(), ownerIds: [owner], mode: 'vector' })).toEqual([]);
      expect(await query({ embedding: [], ownerIds: [owner], mode: 'vector' })).toEqual([]);
    });

    it('honours the limit', async () => {
      const owner = fresh('agt');
      await put(
        document(
          owner,
          Array.from({ length: 30 }, (_, n) => ({ text: `limit test ${n}`, embedding: vector([n % 8, 1]) })),
        ),
      );
      for (const mode of MODES) {
        const base = { text: 'limit test', embedding: vector([0, 1]), ownerIds: [owner], mode };
        expect(await query({ ...base, limit: 7 })).toHaveLength(7);
        expect(await query({ ...base, limit: 0 })).toEqual([]);
        expect(await query({ ...base, limit: -3 })).toEqual([]);
        expect(await query({ ...base, limit: 1000 })).toHaveLength(30);
        expect(await query({ ...base, limit: 2.9 })).toHaveLength(2);
      }
    });

    it('switches an alias from one index to another in one step', async () => {
      const alias = fresh('knowledge');
      const owner = fresh('agt');
      expect(await search.liveIndex(alias)).toBeNull();
      await put(document(owner, [{ text: 'first generation', embedding: vector([0, 1]) }]));
      await search.setLive(alias, index);
      expect(await search.liveIndex(alias)).toBe(index);

      const next = fresh('chunks');
      await search.ensureIndex(next, { dimensions: DIMENSIONS });
      const rebuilt = document(owner, [{ text: 'second generation', embedding: vector([0, 1]) }]);
      await search.upsertDocument(next, rebuilt.documentId, 1, rebuilt.chunks);
      // Building beside the live index leaves the live one serving.
      const live = (await search.liveIndex(alias))!;
      expect(
        (await search.search(live, { text: 'generation', embedding: [], ownerIds: [owner], limit: 5 }))[0]!
          .text,
      ).toBe('first generation');
      await search.setLive(alias, next);
      expect(await search.liveIndex(alias)).toBe(next);
      const switched = (await search.liveIndex(alias))!;
      expect(
        (
          await search.search(switched, { text: 'generation', embedding: [], ownerIds: [owner], limit: 5 })
        )[0]!.text,
      ).toBe('second generation');

      await expect(search.setLive(alias, fresh('chunks'))).rejects.toMatchObject({ kind: 'not_found' });
      expect(await search.liveIndex(alias)).toBe(next);
      await expect(search.dropIndex(next)).rejects.toMatchObject({ kind: 'conflict' });
      await search.dropIndex(index);
      await search.dropIndex(index);
      await expect(search.stats(index)).rejects.toMatchObject({ kind: 'not_found' });
      await expect(
        search.search(index, { text: 'generation', embedding: [], ownerIds: [owner], limit: 5 }),
      ).rejects.toMatchObject({ kind: 'not_found' });
      expect(await search.stats(next)).toEqual({ chunks: 1, documents: 1 });

      // A dropped name can be created again, empty.
      await search.ensureIndex(index, { dimensions: DIMENSIONS });
      expect(await search.stats(index)).toEqual({ chunks: 0, documents: 0 });
      await search.setLive(alias, index);
      await search.dropIndex(next);
      await expect(search.liveIndex('Not An Alias')).rejects.toMatchObject({ kind: 'validation' });
    });

    it('counts chunks and documents', async () => {
      const [a, b] = [fresh('agt'), fresh('spc')];
      expect(await search.stats(index)).toEqual({ chunks: 0, documents: 0 });
      const docs = [
        document(a, [
          { text: 'one', embedding: vector([0, 1]) },
          { text: 'two', embedding: vector([0, 1]) },
        ]),
        document(b, [{ text: 'three', embedding: vector([0, 1]) }]),
        document(b, [
          { text: 'four', embedding: vector([0, 1]) },
          { text: 'five', embedding: vector([0, 1]) },
          { text: 'six', embedding: vector([0, 1]) },
        ]),
      ];
      await put(...docs);
      expect(await search.stats(index)).toEqual({ chunks: 6, documents: 3 });
      await search.deleteDocument(index, docs[2]!.documentId);
      expect(await search.stats(index)).toEqual({ chunks: 3, documents: 2 });
    });
  });
}
