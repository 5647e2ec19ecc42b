// The section-summary builder: works through the summary index rows that have work (a build requested or running,
// a deleted document's summaries to prune, a deleted Agent's tree to remove), recording each step as an event of
// the Agent's summary index. A build reads the leaf chunks of every Ready document the Agent can search, embeds
// them, and builds the tree level by level with the Agent's chat model (the instance's default when the Agent has
// none), reusing the summaries of unchanged groups unless the build is full. The tree goes to the blob store and
// replaces the serving one only when the build completes; a cancel (seen in the log, from any process) aborts the
// model call under way, and the previous tree keeps serving. A crash leaves the build listed, and it starts again.
// Over 300 lines on purpose: one build's steps (read, embed, group, summarise, record) share its state and abort.
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import { LOGGER, newId, PlatformError } from '#kernel';
import { ProjectionRunner, ToDoListScanner } from '#eventsourcing';
import { AggregateRepository } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { ModelGateway } from '#model-gateway';
import type { ModelConfig } from '#model-providers';
import { truncateToTokens } from '#tokenizer';
import { AGENTS, type AgentView } from '#agents';
import { KNOWLEDGE_DOCUMENTS, type DocumentView } from '../knowledge.read-model.js';
import {
  SUMMARY_INDEX_PROJECTION,
  SUMMARY_INDEXES,
  type SummaryIndexView,
} from './summary-index.read-model.js';
import { documentDecider } from '../document.decider.js';
import { documentStreamId } from '../document.events.js';
import type { DocumentChunk } from '../pipeline/document-pipeline.js';
import { embedInBatches, systemScope } from '../system-calls.js';
import { visibleOwners } from '../visible-owners.js';
import { summaryIndexDecider, type SummaryIndexCommand } from './summary-index.decider.js';
import { summaryIndexStreamId, type ActiveSummaryBuild } from './summary-index.events.js';
import {
  RecordSummaryBuild,
  summaryBuildContext,
} from '../commands/record-summary-build/record-summary-build.command.js';
import { buildSummaryTree, pruneSummaryTree, type SummaryLeaf, type SummaryTree } from './summary-tree.js';

/** The tree as stored in the blob store. */
export interface StoredSummaryTree extends SummaryTree {
  readonly agentId: string;
  readonly buildId: string;
  readonly model: string;
}

const MAX_ATTEMPTS = 3;
const SCAN_INTERVAL_MS = 2_000;
const PROGRESS_EVERY_MS = 1_000;
/** Input of one summary call, in tokens, and the length of the summary asked for. */
const INPUT_TOKENS = 3_000;
const SUMMARY_TOKENS = 200;

const SUMMARY_PROMPT =
  'You write the section summaries of a knowledge base. Summarise the passages the user sends in one paragraph of ' +
  'at most 120 words: name the topics, facts and terms they cover, so a reader can tell whether the answer to a ' +
  'question is in them. Write only the summary.';

class BuildStopped extends Error {}

/** The tree in a blob, or null when it is gone. */
export async function loadSummaryTree(blobs: BlobStore, blobId: string): Promise<StoredSummaryTree | null> {
  const bytes = await blobs.get(blobId);
  return bytes ? (JSON.parse(bytes.toString('utf8')) as StoredSummaryTree) : null;
}

@Injectable()
export class SummaryIndexWorker implements BeforeApplicationShutdown {
  private readonly scanner: ToDoListScanner;
  /** Builds under way in this process, by Agent, with the means to stop them. */
  private readonly builds = new Map<
    string,
    { buildId: string; abort: AbortController; done: Promise<void> }
  >();

  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly bus: CommandBus,
    runner: ProjectionRunner,
    private readonly gateway: ModelGateway,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    // One process works the list: the one holding the summary index projection.
    this.scanner = new ToDoListScanner(
      runner,
      SUMMARY_INDEX_PROJECTION,
      () => this.scan(),
      (error) => this.logger.error({ err: error }, 'summary index scan failed'),
      SCAN_INTERVAL_MS,
    );
  }

  start(): void {
    this.scanner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.scanner.stop();
    // A build stopped by shutdown is not cancelled: it stays listed and starts again with the next process.
    for (const build of this.builds.values()) build.abort.abort();
    await Promise.all([...this.builds.values()].map((build) => build.done));
  }

  /** Resolves once nothing is listed or under way here (tests). */
  async idle(): Promise<void> {
    for (;;) {
      await this.scanner.settled();
      await Promise.all([...this.builds.values()].map((build) => build.done));
      const listed = await this.readStore.reader<SummaryIndexView>(SUMMARY_INDEXES).count({ work: true });
      if (listed === 0 && this.builds.size === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private async scan(): Promise<void> {
    const rows = await this.readStore
      .reader<SummaryIndexView>(SUMMARY_INDEXES)
      .find({ work: true }, { limit: 200 });
    const listed = new Map(rows.data.map((row) => [row.id, row]));
    // A build this process runs that the log no longer lists (cancelled, or its Agent gone) stops now.
    for (const [agentId, build] of this.builds) {
      const row = listed.get(agentId);
      const state = row?.build?.state;
      if (
        !row ||
        row.purge ||
        row.build?.buildId !== build.buildId ||
        (state !== 'requested' && state !== 'running')
      )
        build.abort.abort();
    }
    for (const row of rows.data) await this.work(row);
  }

  private async work(row: SummaryIndexView): Promise<void> {
    if (row.purge) return this.purge(row);
    for (const documentId of row.pendingPrunes) await this.prune(row, documentId);
    const build = row.build;
    if ((build?.state === 'requested' || build?.state === 'running') && !this.builds.has(row.id)) {
      const abort = new AbortController();
      const entry = { buildId: build.buildId, abort, done: Promise.resolve() };
      entry.done = this.runBuild(row.id, abort.signal)
        .catch((error: unknown) => this.logger.error({ err: error, agentId: row.id }, 'summary build failed'))
        .finally(() => {
          this.builds.delete(row.id);
          this.scanner.trigger();
        });
      this.builds.set(row.id, entry);
    }
  }

  private async runBuild(agentId: string, signal: AbortSignal): Promise<void> {
    const { state } = await this.aggregates.load(summaryIndexStreamId(agentId), summaryIndexDecider);
    const build = state.build;
    if (!build) return;
    if (build.attempts >= MAX_ATTEMPTS)
      return void (await this.fail(
        agentId,
        build,
        'too_many_attempts',
        `the build was tried ${MAX_ATTEMPTS} times`,
      ));
    const agent = await this.readStore.reader<AgentView>(AGENTS).get(agentId);
    const model = this.gateway.registry.get(build.model);
    if (!agent)
      return void (await this.fail(agentId, build, 'agent_not_found', 'the Agent no longer exists'));
    if (model?.kind !== 'chat')
      return void (await this.fail(
        agentId,
        build,
        'model_not_found',
        `chat model '${build.model}' is not configured`,
      ));
    let treeBlobId: string | null = null;
    try {
      const { leaves, documentIds } = await this.leaves(agent, signal);
      await this.run({
        type: 'StartSummaryBuild',
        agentId,
        buildId: build.buildId,
        leafCount: leaves.length,
        documentCount: documentIds.length,
      });
      const previous =
        !build.full && state.serving ? await loadSummaryTree(this.blobs, state.serving.treeBlobId) : null;
      const earlier = new Map(previous?.nodes.map((node) => [node.key, node.summary]) ?? []);
      const scope = systemScope(agentId, `summary-index:${build.buildId}`);
      let reported = 0;
      const { tree, reused } = await buildSummaryTree(leaves, {
        summarise: (texts) => this.summarise(scope, model, texts, signal),
        embed: (texts) => embedInBatches(this.gateway, scope, texts, signal),
        reuse: (key) => earlier.get(key),
        onGroup: async (level, done, total) => {
          if (signal.aborted) throw new BuildStopped();
          if (done < total && Date.now() - reported < PROGRESS_EVERY_MS) return;
          reported = Date.now();
          const recorded = await this.run({
            type: 'RecordSummaryBuildProgress',
            agentId,
            buildId: build.buildId,
            level,
            groupsDone: done,
            groupsTotal: total,
          });
          if (recorded === 0) throw new BuildStopped();
        },
      });
      const stored: StoredSummaryTree = { ...tree, agentId, buildId: build.buildId, model: build.model };
      treeBlobId = (
        await this.blobs.put(Buffer.from(JSON.stringify(stored), 'utf8'), { contentType: 'application/json' })
      ).id;
      const completed = await this.run({
        type: 'CompleteSummaryBuild',
        agentId,
        buildId: build.buildId,
        treeBlobId,
        nodeCount: tree.nodes.length,
        levels: tree.levels,
        leafCount: tree.leafCount,
        documentIds,
        builtAt: new Date().toISOString(),
        reusedSummaries: reused,
      });
      if (completed === 0) throw new BuildStopped();
      // The tree it replaced goes (unless the same content came out again).
      if (state.serving && state.serving.treeBlobId !== treeBlobId)
        await this.blobs.delete(state.serving.treeBlobId);
    } catch (error) {
      // Stopped by a cancel or by shutdown: the previous tree keeps serving; a tree written for nothing goes.
      if (treeBlobId && treeBlobId !== state.serving?.treeBlobId) await this.blobs.delete(treeBlobId);
      if (error instanceof BuildStopped || signal.aborted) return;
      if (error instanceof PlatformError)
        return void (await this.fail(agentId, build, error.code, error.message));
      throw error;
    }
  }

  /** The leaf chunks of every Ready document the Agent can search, oldest document first. */
  private async leaves(
    agent: AgentView,
    signal: AbortSignal,
  ): Promise<{ leaves: SummaryLeaf[]; documentIds: string[] }> {
    const documents = this.readStore.reader<DocumentView>(KNOWLEDGE_DOCUMENTS);
    const chunks: { documentId: string; text: string }[] = [];
    const documentIds: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await documents.find(
        { ownerId: { $in: visibleOwners(agent) }, status: 'Ready' },
        { sort: { field: 'createdAt' }, limit: 200, cursor },
      );
      for (const view of page.data) {
        const { state } = await this.aggregates.load(documentStreamId(view.id), documentDecider);
        const blobId = 'chunksBlobId' in state ? state.chunksBlobId : null;
        const json = blobId ? await this.blobs.get(blobId) : null;
        if (!json) continue;
        documentIds.push(view.id);
        for (const chunk of JSON.parse(json.toString('utf8')) as DocumentChunk[])
          chunks.push({ documentId: view.id, text: chunk.text });
      }
      cursor = page.nextCursor;
    } while (cursor && !signal.aborted);
    const embeddings = await embedInBatches(
      this.gateway,
      systemScope(agent.id, 'summary-index'),
      chunks.map((chunk) => chunk.text),
      signal,
    );
    return { leaves: chunks.map((chunk, i) => ({ ...chunk, embedding: embeddings[i]! })), documentIds };
  }

  private async summarise(
    scope: ReturnType<typeof systemScope>,
    model: ModelConfig,
    texts: readonly string[],
    signal: AbortSignal,
  ): Promise<string> {
    const passages = truncateToTokens(
      texts.map((text, i) => `[${i + 1}] ${text}`).join('\n\n'),
      INPUT_TOKENS,
    );
    const result = await this.gateway.chat(
      scope,
      model,
      {
        messages: [
          { role: 'system', content: SUMMARY_PROMPT },
          { role: 'user', content: passages },
        ],
        max_completion_tokens: SUMMARY_TOKENS,
      },
      AbortSignal.any([signal, AbortSignal.timeout(model.timeoutMs)]),
    );
    const content = result.message.content;
    return typeof content === 'string' ? content.trim() : '';
  }

  /** Removes every summary covering a deleted document from the serving tree (a new blob; the old one goes). */
  private async prune(row: SummaryIndexView, documentId: string): Promise<void> {
    const serving = row.serving;
    const tree = serving ? await loadSummaryTree(this.blobs, serving.treeBlobId) : null;
    if (!serving || !tree) return;
    const pruned = pruneSummaryTree(tree, documentId);
    const blob = await this.blobs.put(Buffer.from(JSON.stringify({ ...tree, ...pruned.tree }), 'utf8'), {
      contentType: 'application/json',
    });
    const recorded = await this.run({
      type: 'PruneSummaryTree',
      agentId: row.id,
      buildId: serving.buildId,
      documentId,
      treeBlobId: blob.id,
      nodeCount: pruned.tree.nodes.length,
      removedNodes: pruned.removed,
    });
    if (recorded === 0) return;
    if (blob.id !== serving.treeBlobId) await this.blobs.delete(serving.treeBlobId);
    // The summaries that quoted it are gone; an incremental build writes those groups again (the rest is reused),
    // unless a build is under way (the decider's).
    await this.run({
      type: 'RequestSummaryBuild',
      agentId: row.id,
      buildId: newId('sumb'),
      full: false,
      model: serving.model,
      reason: 'document_deleted',
    });
  }

  /** A deleted Agent's tree leaves the blob store, and its index the log's list. */
  private async purge(row: SummaryIndexView): Promise<void> {
    this.builds.get(row.id)?.abort.abort();
    await this.builds.get(row.id)?.done;
    if (row.serving) await this.blobs.delete(row.serving.treeBlobId);
    await this.run({ type: 'DeleteSummaryIndex', agentId: row.id });
  }

  private async fail(
    agentId: string,
    build: ActiveSummaryBuild,
    reason: string,
    message: string,
  ): Promise<void> {
    this.logger.warn({ agentId, buildId: build.buildId, reason }, 'summary build failed');
    await this.run({ type: 'FailSummaryBuild', agentId, buildId: build.buildId, reason, message });
  }

  private async run(command: SummaryIndexCommand): Promise<number> {
    return (await this.bus.execute(new RecordSummaryBuild(command, summaryBuildContext(command.agentId))))
      .appended;
  }
}
