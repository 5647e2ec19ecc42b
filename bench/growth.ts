// Benchmark part `growth`: how a conversation turn's cost and the api's memory grow with the Agent's Knowledge (1k,
// 10k, 100k, 1M chunks) and with the conversation's length (10, 1,000, 10,000 messages), each step beside the one
// before. The same processes as the conversations bench (the built api, the fake upstream answering after
// `upstreamLatencyMs`, a second one answering at once, this process as the client) and its seeding: the documents
// are added through the api once, then the same Knowledge is grown in the live index of the api's search.db (api
// stopped; conversations.ts fillIndex: each document's chunks replaced by more generated ones) and the api started
// again at each size, with the same search memory throughout (by default the largest size's floats and codes fit).
//
// Which steps are linear, and why: the vector leg is an exact scan of every chunk's int8 codes, and the BM25 leg
// scores every posting of the query's rarer words (and of the frequent ones in the rows that may still rank), so a
// turn's retrieval (and the codes and postings in memory) grow with the chunks; those rows carry no step goal, and the
// largest size has the absolute goals, beside this machine's floor for the scan (growth-floor.ts: one SIMD
// pass over as many bytes as the codes, in this process) and the scan alone against it (growth-scan.ts). A turn's cost in a
// longer conversation should not grow (the prompt's history is bounded by the Agent's token budget, messages are read
// by an index): those steps carry the goal ≤ 1.5 × the step before.
//
// Time: the fills dominate, and grow with the chunks (each size rewrites every document; the smaller sizes add ≈ 11 %
// to the largest's): 100,000 chunks took 437 s on 2 loaded cores (load average 8–12: generating, embedding and
// writing them, their BM25 postings, the recall check), so 1,000,000 takes over an hour there; on a quiet machine the
// million's fill took 567 s and the whole part 792 s. Growing a conversation
// to 10,000 messages is 5,000 turns (292 s there).
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EMBEDDING_DIMENSIONS } from '#model-providers/offline/offline-embed';
import { memoryOf, spawnApi, stop } from './api-startup.js';
import {
  addDocuments,
  Client,
  CORE,
  expectStatus,
  fillIndex,
  REPLY,
  searchMemoryFor,
} from './conversations.js';
import { conversationGrowth, type ConversationStep, turnVsGateway } from './growth-turns.js';
import { startUpstream } from './gateway.js';
import { simdPassFloor } from './growth-floor.js';
import { int8ScanP50 } from './growth-scan.js';
import { log, makeTempDir, text, type MetricRow } from './util.js';

export interface GrowthBenchOptions {
  readonly mainPath: string;
  readonly upstreamPath: string;
  readonly readyTimeoutMs: number;
  /** Documents added through the api; every size spreads its chunks evenly over them. */
  readonly documents: number;
  /** Knowledge sizes in chunks, smallest first. */
  readonly chunkCounts: readonly number[];
  /** Turns and gateway calls measured per size, alternating blocks of `block`, after `warmupTurns` of each. */
  readonly turns: number;
  readonly block: number;
  readonly warmupTurns: number;
  readonly upstreamLatencyMs: number;
  /** Conversation lengths in messages, smallest first, and the turns timed at each (instant upstream). */
  readonly conversationMessages: readonly number[];
  readonly conversationTurns: number;
  /** The api's SEARCH_VECTOR_CACHE_MB (default: the floats and codes of the largest size fit). */
  readonly vectorCacheMb?: number;
}

export interface GrowthDetails {
  readonly knowledge: readonly {
    chunks: number;
    fillSeconds: number;
    turnP50Ms: number;
    gatewayP50Ms: number;
    addedMs: number;
    searchP50Ms: number;
    rssMb: number;
    recall: number;
  }[];
  readonly simdPassFloorMs: number;
  /** The vector leg's exact scan alone over as many vectors, in this process (growth-scan.ts). */
  readonly int8ScanMs: number;
  readonly conversation: readonly ConversationStep[];
  readonly searchMemory: { vectorCacheMb: number; bm25Mb: number };
}

const kilo = (chunks: number) =>
  chunks >= 1_000_000 ? `${chunks / 1_000_000}M` : `${Math.round(chunks / 1000)}k`;

export async function benchGrowth(
  options: GrowthBenchOptions,
): Promise<{ rows: MetricRow[]; details: GrowthDetails }> {
  for (const path of [options.mainPath, options.upstreamPath])
    if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build first`);
  const dir = makeTempDir('growth');
  const dataDir = join(dir.path, 'data');
  const children = new Set<ChildProcess>();
  const killAll = () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const client = new Client(0);
  const largest = Math.max(...options.chunkCounts);
  // The floats and codes of the largest size, and its BM25 postings, as the conversations bench sizes them; or a
  // smaller vector cache (`vectorCacheMb`: with the codes alone resident, the survivors' segments are read back).
  const searchMemory = {
    ...searchMemoryFor(largest),
    ...(options.vectorCacheMb ? { vectorCacheMb: options.vectorCacheMb } : {}),
  };
  try {
    const upstream = await startUpstream(options.upstreamPath, {
      reply: REPLY,
      latencyMs: options.upstreamLatencyMs,
    });
    children.add(upstream.child);
    const instant = await startUpstream(options.upstreamPath, { reply: REPLY });
    children.add(instant.child);
    const modelsFile = join(dir.path, 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'providers:',
        `  fake: { baseUrl: http://127.0.0.1:${upstream.port}/v1 }`,
        `  instant: { baseUrl: http://127.0.0.1:${instant.port}/v1 }`,
        'models:',
        '  - { key: fake-chat, modelId: fake-model, provider: fake, kind: chat, pricing: { input: 1, output: 2 } }',
        '  - { key: fake-chat-instant, modelId: fake-model, provider: instant, kind: chat, pricing: { input: 1, output: 2 } }',
        '',
      ].join('\n'),
    );
    const startApi = async () => {
      const started = await spawnApi(
        options.mainPath,
        dataDir,
        options.readyTimeoutMs,
        {
          MODELS_FILE: modelsFile,
          SEARCH_VECTOR_CACHE_MB: String(searchMemory.vectorCacheMb),
          SEARCH_BM25_MEMORY_MB: String(searchMemory.bm25Mb),
        },
        true,
      );
      children.add(started.child);
      client.port = started.port;
      return started;
    };
    const stopApi = async (child: ChildProcess) => {
      await stop(child);
      children.delete(child);
    };

    const first = await startApi();
    const space = await client.json<{ id: string }>('POST', `${CORE}/spaces`, { name: 'Growth space' });
    expectStatus('creating the Space', space, 201);
    const systemPrompt = `You are the bench Agent. ${text(400, 3)}`;
    const created = await client.json<{ id: string }>('POST', `${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'Growth agent',
      model: 'fake-chat',
      systemPrompt,
    });
    expectStatus('creating the Agent', created, 201);
    const agentId = created.body.id;
    log(`growth: adding ${options.documents} documents through the api …`);
    const documentIds = await addDocuments(client, agentId, options.documents);
    await stopApi(first.child);

    const knowledge: GrowthDetails['knowledge'][number][] = [];
    let conversation: ConversationStep[] = [];
    for (const [step, chunks] of options.chunkCounts.entries()) {
      const at = performance.now();
      const filled = await fillIndex(
        dataDir,
        agentId,
        documentIds,
        Math.max(1, Math.round(chunks / documentIds.length)),
      );
      const fillSeconds = (performance.now() - at) / 1000;
      log(`growth: ${filled.chunks.toLocaleString('en-US')} chunks in ${fillSeconds.toFixed(1)} s`);
      const api = await startApi();
      try {
        const timed = await turnVsGateway(client, agentId, systemPrompt, options);
        const rssMb = memoryOf(api.child.pid!).rssMb;
        knowledge.push({ chunks: filled.chunks, fillSeconds, ...timed, rssMb, recall: filled.recall });
        log(
          `growth: ${kilo(filled.chunks)} chunks: turn added ${timed.addedMs.toFixed(2)} ms, search ` +
            `${timed.searchP50Ms.toFixed(2)} ms, api RSS ${rssMb.toFixed(0)} MB`,
        );
        // The conversation's growth on the smallest Knowledge, where retrieval costs least.
        if (step === 0) conversation = await conversationGrowth(client, agentId, api.child.pid!, options);
      } finally {
        await stopApi(api.child);
      }
    }
    const floorMs = simdPassFloor(knowledge[knowledge.length - 1]!.chunks * EMBEDDING_DIMENSIONS);
    log(
      `growth: one SIMD pass over ${kilo(largest)} chunks' worth of int8 codes, p50 ${floorMs.toFixed(2)} ms`,
    );
    const scanMs = int8ScanP50(knowledge[knowledge.length - 1]!.chunks, EMBEDDING_DIMENSIONS);
    log(`growth: the exact int8 scan of as many vectors, p50 ${scanMs.toFixed(2)} ms`);
    return {
      rows: [...growthRows(knowledge, conversation, floorMs), scanRow(largest, scanMs, floorMs)],
      details: { knowledge, simdPassFloorMs: floorMs, int8ScanMs: scanMs, conversation, searchMemory },
    };
  } finally {
    client.agent.destroy();
    for (const child of [...children].reverse()) await stop(child);
    process.off('exit', killAll);
    dir.remove();
  }
}

/** The scan alone against the memory floor: what the scan's arithmetic adds to reading the codes once. */
const scanRow = (chunks: number, scanMs: number, floorMs: number): MetricRow => ({
  metric: `growth: exact int8 vector scan of ${kilo(chunks)} chunks ÷ one SIMD pass over their codes (floor)`,
  value: scanMs,
  unit: 'ms',
  baseline: floorMs,
  baselineLabel: 'ms SIMD pass',
  ratio: scanMs / floorMs,
  goal: { on: 'ratio', op: '<=', target: 2 },
});

function growthRows(
  knowledge: GrowthDetails['knowledge'],
  conversation: GrowthDetails['conversation'],
  floorMs: number,
): MetricRow[] {
  const rows: MetricRow[] = [];
  for (const [i, size] of knowledge.entries()) {
    const before = knowledge[i - 1];
    const last = i === knowledge.length - 1 && size.chunks >= 1_000_000;
    rows.push(
      {
        metric: `growth: turn added p50 at ${kilo(size.chunks)} chunks ÷ the step before (linear: exact scans)`,
        value: size.addedMs,
        unit: 'ms',
        baseline: before?.addedMs ?? null,
        baselineLabel: before ? `ms at ${kilo(before.chunks)}` : null,
        ratio: before ? size.addedMs / before.addedMs : null,
        goal: last ? { on: 'value', op: '<=', target: 15 } : null,
      },
      {
        metric: `growth: api RSS at ${kilo(size.chunks)} chunks ÷ the step before (linear: codes and postings)`,
        value: size.rssMb,
        unit: 'MB',
        baseline: before?.rssMb ?? null,
        baselineLabel: before ? `MB at ${kilo(before.chunks)}` : null,
        ratio: before ? size.rssMb / before.rssMb : null,
        goal: last ? { on: 'value', op: '<=', target: 1024 } : null,
      },
    );
  }
  const top = knowledge[knowledge.length - 1]!;
  rows.push(
    {
      metric: `  growth: search alone p50 at ${kilo(top.chunks)} chunks ÷ one SIMD pass over as many int8 codes (floor, info)`,
      value: top.searchP50Ms,
      unit: 'ms',
      baseline: floorMs,
      baselineLabel: 'ms SIMD pass',
      ratio: top.searchP50Ms / floorMs,
      goal: null,
    },
    {
      metric: `growth: vector leg recall@10 vs the plain exact scan at ${kilo(top.chunks)} chunks`,
      value: top.recall,
      unit: 'recall@10',
      baseline: null,
      baselineLabel: null,
      ratio: null,
      goal: { on: 'value', op: '>=', target: 0.95 },
    },
  );
  for (const [i, step] of conversation.entries()) {
    const before = conversation[i - 1];
    rows.push({
      metric: `growth: turn p50 in a ${step.messages}-message conversation ÷ the step before (sublinear: bounded history)`,
      value: step.turnP50Ms,
      unit: 'ms',
      baseline: before?.turnP50Ms ?? null,
      baselineLabel: before ? `ms at ${before.messages}` : null,
      ratio: before ? step.turnP50Ms / before.turnP50Ms : null,
      goal: before ? { on: 'ratio', op: '<=', target: 1.5 } : null,
    });
  }
  return rows;
}
