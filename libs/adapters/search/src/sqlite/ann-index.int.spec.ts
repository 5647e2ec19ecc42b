// The HNSW path of the embedded search index: the same top results as the exact scan on small data, recall@10
// against it on clustered vectors, deletions honoured at once, graphs built by a worker and persisted so that a
// restart loads them instead of building again.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '#kernel';
import { testChunk } from '../search-index.contract.js';
import { SqliteSearchIndex } from './sqlite-search-index.js';

const DIMENSIONS = 32;
const INDEX = 'chunks_v1';
const dirs: string[] = [];
const freshPath = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ann-'));
  dirs.push(dir);
  return join(dir, 'search.db');
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A deterministic generator in [-0.5, 0.5). */
const random = (seed: number) => {
  const next = seededRandom(seed);
  return () => next() - 0.5;
};

/** Clustered vectors: `clusters` centres, each vector its centre plus noise. */
function clustered(count: number, seed: number, clusters = 20): number[][] {
  const next = random(seed);
  const centres = Array.from({ length: clusters }, () => Array.from({ length: DIMENSIONS }, next));
  return Array.from({ length: count }, (_, i) => centres[i % clusters]!.map((value) => value + 0.5 * next()));
}

async function fill(
  search: SqliteSearchIndex,
  ownerId: string,
  vectors: readonly number[][],
  perDocument: number,
  prefix = ownerId,
): Promise<string[]> {
  const documentIds: string[] = [];
  for (let at = 0; at < vectors.length; at += perDocument) {
    const documentId = `${prefix}-doc-${at / perDocument}`;
    documentIds.push(documentId);
    await search.upsertDocument(
      INDEX,
      documentId,
      1,
      vectors
        .slice(at, at + perDocument)
        .map((embedding, i) => testChunk(ownerId, documentId, i, `chunk ${at + i}`, embedding)),
    );
  }
  return documentIds;
}

const top = async (search: SqliteSearchIndex, ownerIds: string[], embedding: number[], limit = 10) =>
  (await search.search(INDEX, { text: '', embedding, ownerIds, limit, mode: 'vector' })).map(
    (hit) => hit.chunkId,
  );

describe('SqliteSearchIndex approximate nearest neighbours', () => {
  it('returns the exact scan’s top results on small data, above the threshold as below it, owners kept apart', async () => {
    const path = freshPath();
    const exact = new SqliteSearchIndex({ path, ann: { minChunks: 1_000_000 } });
    const approximate = new SqliteSearchIndex({ path, ann: { minChunks: 50, inlineAddMax: 1000 } });
    await exact.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    await fill(exact, 'agt_big', clustered(400, 1), 40);
    await fill(exact, 'spc_small', clustered(30, 2), 10);
    await fill(exact, 'global', clustered(60, 3), 20);
    const queries = clustered(20, 9);
    for (const owners of [['agt_big'], ['spc_small'], ['agt_big', 'spc_small', 'global'], ['nobody']]) {
      for (const query of queries) {
        const expected = await top(exact, owners, query);
        const got = await top(approximate, owners, query);
        expect(got).toEqual(expected);
        for (const chunkId of got) expect(owners.some((owner) => chunkId.startsWith(`${owner}-`))).toBe(true);
      }
    }
    expect(approximate.annProgress().map((p) => [p.ownerId, p.state])).toEqual(
      expect.arrayContaining([
        ['agt_big', 'ready'],
        ['global', 'ready'],
      ]),
    );
    expect(approximate.annProgress().some((p) => p.ownerId === 'spc_small')).toBe(false);
    await exact.close();
    await approximate.close();
  });

  it('reaches recall@10 ≥ 0.95 against the exact scan on 5,000 clustered vectors', async () => {
    const path = freshPath();
    const exact = new SqliteSearchIndex({ path, ann: { minChunks: 1_000_000 } });
    const approximate = new SqliteSearchIndex({ path, ann: { minChunks: 1, inlineAddMax: 10_000 } });
    await exact.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    await fill(exact, 'agt_1', clustered(5000, 4, 50), 100);
    let found = 0;
    const queries = clustered(100, 5, 50);
    for (const query of queries) {
      const expected = new Set(await top(exact, ['agt_1'], query));
      for (const chunkId of await top(approximate, ['agt_1'], query)) if (expected.has(chunkId)) found++;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    await exact.close();
    await approximate.close();
  });

  it('builds a big owner’s graph in a worker (exact results meanwhile), honours deletions at once, and loads it after a restart', async () => {
    const path = freshPath();
    const vectors = clustered(600, 6);
    const first = new SqliteSearchIndex({ path, ann: { minChunks: 100, inlineAddMax: 50 } });
    await first.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    const documentIds = await fill(first, 'agt_1', vectors, 60);
    const query = vectors[7]!;
    const before = await top(first, ['agt_1'], query);
    expect(before[0]).toBe(`${documentIds[0]}-7`);
    expect(first.annProgress().map((p) => p.state)).toEqual(['building']);
    await first.annSettled();
    const [ready] = first.annProgress();
    expect(ready).toMatchObject({ ownerId: 'agt_1', state: 'ready', vectors: 600, total: 600 });
    expect(ready!.buildMs).toBeGreaterThan(0);
    expect(await top(first, ['agt_1'], query)).toEqual(before);

    // Deleted: never returned, from the very next search.
    await first.deleteDocument(INDEX, documentIds[0]!);
    const afterDelete = await top(first, ['agt_1'], query, 100);
    expect(afterDelete).toHaveLength(100);
    expect(afterDelete.some((chunkId) => chunkId.startsWith(`${documentIds[0]}-`))).toBe(false);
    await first.close();

    // Another process deletes one more document while this one is stopped; the restart loads the saved graph
    // (no build starts although a build is needed for more than 50 new vectors) and removes what is gone.
    const other = new SqliteSearchIndex({ path, ann: { minChunks: 1_000_000 } });
    await other.deleteDocument(INDEX, documentIds[1]!);
    await other.close();
    const saved = join(`${path}.ann`);
    expect(statSync(saved).isDirectory()).toBe(true);
    const second = new SqliteSearchIndex({ path, ann: { minChunks: 100, inlineAddMax: 50 } });
    const afterRestart = await top(second, ['agt_1'], query, 100);
    expect(second.annProgress().map((p) => [p.state, p.vectors])).toEqual([['ready', 480]]);
    expect(
      afterRestart.some((id) => id.startsWith(`${documentIds[0]}-`) || id.startsWith(`${documentIds[1]}-`)),
    ).toBe(false);
    const exact = new SqliteSearchIndex({ path, ann: { minChunks: 1_000_000 } });
    expect((await top(second, ['agt_1'], query)).slice(0, 5)).toEqual(
      (await top(exact, ['agt_1'], query)).slice(0, 5),
    );
    await exact.close();
    await second.close();
  });

  it('stops a build under way when it closes (the worker asked to stop, not terminated), and builds again after', async () => {
    const path = freshPath();
    const vectors = clustered(3000, 9);
    const first = new SqliteSearchIndex({ path, ann: { minChunks: 100, inlineAddMax: 50 } });
    await first.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    await fill(first, 'agt_1', vectors, 30);
    await top(first, ['agt_1'], vectors[3]!);
    expect(first.annProgress().map((p) => p.state)).toEqual(['building']);
    // Closing ends the build between two of usearch's calls (a terminated thread inside one aborts the process).
    await first.close();
    const second = new SqliteSearchIndex({ path, ann: { minChunks: 100, inlineAddMax: 50 } });
    expect(await top(second, ['agt_1'], vectors[3]!)).toContain(`agt_1-doc-0-3`);
    await second.annSettled();
    expect(second.annProgress()).toEqual([expect.objectContaining({ state: 'ready', vectors: 3000 })]);
    await second.close();
  });

  it('forgets a dropped index’s graphs and their files', async () => {
    const path = freshPath();
    const search = new SqliteSearchIndex({ path, ann: { minChunks: 10 } });
    await search.ensureIndex(INDEX, { dimensions: DIMENSIONS });
    await fill(search, 'agt_1', clustered(40, 7), 20);
    await top(search, ['agt_1'], clustered(1, 8)[0]!);
    await search.close();
    const reopened = new SqliteSearchIndex({ path, ann: { minChunks: 10 } });
    await reopened.ensureIndex('chunks_v2', { dimensions: DIMENSIONS });
    await reopened.dropIndex(INDEX);
    expect(reopened.annProgress()).toEqual([]);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(`${path}.ann`)).toEqual([]);
    await reopened.close();
  });
});
