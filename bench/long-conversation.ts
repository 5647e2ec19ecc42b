// A long conversation costs what a short one does (issue 27 §2): a turn's p50 in a 1,000-message conversation against
// one in a 10-message conversation, same Agent, same instant upstream, alternating blocks (the difference is what the
// long history adds: reading it, opening it, counting it, the bigger prompt). Each short turn runs in its own
// conversation grown to exactly `shortMessages` messages, so every one is a 10-message turn; the long conversation
// grows by two messages a turn (the figure is reported with its message count at the end).
//
// Part of the conversations bench (section 4, after the listing, on its 1,000-message conversation); also runnable
// alone, without the 100,000-chunk Knowledge and the other sections, after `npm run build`:
//   node dist/bench/long-conversation.js     (a small Knowledge of tiny documents; prints the rows and details)
//   LONG_BUDGET=4000 …                       (the Agent's conversation token budget: the long conversation compacts)
//   LONG_TURNS=60, LONG_MESSAGES=1000        (measured turns per path, messages of the long conversation)
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_ADMIN_API_KEY, spawnApi, stop } from './api-startup.js';
import { startUpstream } from './gateway.js';
import { log, makeTempDir, median, type MetricRow } from './util.js';

const CORE = '/api/v1/core';

/** What this part needs of the bench's HTTP client. */
export interface JsonClient {
  json<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; ms: number; body: T; raw: string }>;
}

export interface LongConversationOptions {
  /** Messages of the short conversations each measured short turn runs in (before its question). */
  readonly shortMessages: number;
  /** Measured turns per path, alternating blocks of `block`, after `warmupTurns` of each. */
  readonly turns: number;
  readonly block: number;
  readonly warmupTurns: number;
  /** The chat model of the turns (the instant upstream). */
  readonly model: string;
}

export interface LongConversationDetails {
  readonly longMessagesAtStart: number;
  readonly longMessagesAtEnd: number;
  readonly shortMessages: number;
  readonly longTurnP50: number;
  readonly shortTurnP50: number;
  readonly addedP50Ms: number;
  readonly longPromptTokensP50: number;
  readonly shortPromptTokensP50: number;
  readonly turns: number;
}

interface TurnBody {
  readonly conversationId: string;
  readonly message: { readonly usage: { readonly inputTokens: number } };
}

/** Turn p50 in the long conversation `longConversationId` vs in `shortMessages`-message conversations. */
export async function measureLongConversation(
  client: JsonClient,
  agentId: string,
  longConversationId: string,
  longMessages: number,
  queries: readonly string[],
  options: LongConversationOptions,
): Promise<{ rows: MetricRow[]; details: LongConversationDetails }> {
  let q = 0;
  const turn = async (conversationId: string | null) => {
    const answer = await client.json<TurnBody>('POST', `${CORE}/llm/${agentId}/conversation`, {
      ...(conversationId ? { conversationId } : {}),
      message: queries[q++ % queries.length]!,
      model: options.model,
    });
    if (answer.status !== 200 && answer.status !== 201)
      throw new Error(
        `a long-conversation bench turn answered ${answer.status}: ${answer.raw.slice(0, 500)}`,
      );
    return answer;
  };
  const total = options.warmupTurns + options.turns;
  log(
    `conversations: ${total} conversations of ${options.shortMessages} messages for the short turns (` +
      `${(total * options.shortMessages) / 2} turns) …`,
  );
  const shorts: string[] = [];
  for (let i = 0; i < total; i++) {
    let id: string | null = null;
    for (let m = 0; m < options.shortMessages; m += 2) id = (await turn(id)).body.conversationId;
    shorts.push(id!);
  }
  const longTimes: number[] = [];
  const shortTimes: number[] = [];
  const longTokens: number[] = [];
  const shortTokens: number[] = [];
  let nextShort = 0;
  const paths = [
    async (into: boolean) => {
      const answer = await turn(longConversationId);
      if (!into) return;
      longTimes.push(answer.ms);
      longTokens.push(answer.body.message.usage.inputTokens);
    },
    async (into: boolean) => {
      const answer = await turn(shorts[nextShort++]!);
      if (!into) return;
      shortTimes.push(answer.ms);
      shortTokens.push(answer.body.message.usage.inputTokens);
    },
  ];
  for (let i = 0; i < options.warmupTurns; i++) for (const path of paths) await path(false);
  log(
    `conversations: ${options.turns} turns in the ${longMessages}-message conversation vs in ` +
      `${options.shortMessages}-message ones, blocks of ${options.block} …`,
  );
  for (let from = 0, round = 0; from < options.turns; from += options.block, round++) {
    const count = Math.min(options.block, options.turns - from);
    const order = round % 2 === 0 ? paths : [...paths].reverse();
    for (const path of order) for (let i = 0; i < count; i++) await path(true);
  }
  const longP50 = median(longTimes);
  const shortP50 = median(shortTimes);
  const added = longP50 - shortP50;
  const atEnd = longMessages + 2 * total;
  log(
    `conversations: turn p50 ${longP50.toFixed(2)} ms at ${longMessages}–${atEnd} messages vs ` +
      `${shortP50.toFixed(2)} ms at ${options.shortMessages} (added ${added.toFixed(2)} ms); prompt tokens p50 ` +
      `${median(longTokens)} / ${median(shortTokens)}`,
  );
  return {
    rows: [
      {
        metric: `conversation turn added p50, ${longMessages}-message vs ${options.shortMessages}-message conversation`,
        value: added,
        unit: 'ms',
        baseline: shortP50,
        baselineLabel: `ms turn at ${options.shortMessages} messages`,
        ratio: longP50 / shortP50,
        goal: { on: 'value', op: '<=', target: 2 },
      },
    ],
    details: {
      longMessagesAtStart: longMessages,
      longMessagesAtEnd: atEnd,
      shortMessages: options.shortMessages,
      longTurnP50: Number(longP50.toFixed(4)),
      shortTurnP50: Number(shortP50.toFixed(4)),
      addedP50Ms: Number(added.toFixed(4)),
      longPromptTokensP50: median(longTokens),
      shortPromptTokensP50: median(shortTokens),
      turns: options.turns,
    },
  };
}

/** A keep-alive JSON client of the api, with both auth headers (as the conversations bench's). */
class SmallClient implements JsonClient {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });
  constructor(public port: number) {}
  json<T>(method: string, path: string, body?: unknown) {
    const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
    return new Promise<{ status: number; ms: number; body: T; raw: string }>((resolve, reject) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${BENCH_ADMIN_API_KEY}`,
            'x-api-key': BENCH_ADMIN_API_KEY,
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const ms = performance.now() - started;
            const raw = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, ms, body: (raw ? JSON.parse(raw) : null) as T, raw });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload ?? undefined);
    });
  }
}

/** Standalone: a small Knowledge, a 1,000-message conversation, its first page of 200, then the turn comparison. */
async function main(): Promise<void> {
  const mainPath = fileURLToPath(new URL('../apps/api/src/main.js', import.meta.url));
  const upstreamPath = fileURLToPath(new URL('./fake-upstream-server.js', import.meta.url));
  const longMessages = Number(process.env.LONG_MESSAGES ?? 1_000);
  const dir = makeTempDir('long-conversation');
  const children: ChildProcess[] = [];
  const client = new SmallClient(0);
  try {
    const instant = await startUpstream(upstreamPath, {
      reply:
        'The documents cover this in two places [1]. The second source adds the details that matter here [2].',
    });
    children.push(instant.child);
    const modelsFile = join(dir.path, 'models.yaml');
    writeFileSync(
      modelsFile,
      [
        'providers:',
        `  instant: { baseUrl: http://127.0.0.1:${instant.port}/v1 }`,
        'models:',
        '  - { key: fake-chat-instant, modelId: fake-model, provider: instant, kind: chat, pricing: { input: 1, output: 2 } }',
        '',
      ].join('\n'),
    );
    const api = await spawnApi(mainPath, join(dir.path, 'data'), 60_000, { MODELS_FILE: modelsFile }, true);
    children.push(api.child);
    client.port = api.port;
    const space = await client.json<{ id: string }>('POST', `${CORE}/spaces`, { name: 'Bench space' });
    const agent = await client.json<{ id: string }>('POST', `${CORE}/agents`, {
      spaceId: space.body.id,
      name: 'Bench agent',
      model: 'fake-chat-instant',
      systemPrompt: 'You are the bench Agent. Answer from the documents.',
      // LONG_BUDGET: the Agent's conversation token budget, so that the long conversation is compacted (its turns
      // then read the checkpoint and the messages after it); unset, the default budget keeps 1,000 short messages
      // whole (about 14,000 tokens), and every turn's model view is all of them.
      ...(process.env.LONG_BUDGET ? { conversationTokenBudget: Number(process.env.LONG_BUDGET) } : {}),
    });
    if (agent.status !== 201) throw new Error(`creating the Agent answered ${agent.status}: ${agent.raw}`);
    const agentId = agent.body.id;
    for (let i = 0; i < 5; i++)
      await client.json('POST', `${CORE}/knowledge/${agentId}/documents`, {
        name: `bench-${i}.txt`,
        text: `Bench document ${i} about the careful answer of the model in this space and its context.`,
      });
    await sleep(2_000);
    const queries = Array.from({ length: 50 }, (_, i) => `What do the documents say about topic ${i}?`);
    log(`long conversation: growing one conversation to ${longMessages} messages …`);
    let conversationId: string | null = null;
    for (let i = 0; i < longMessages / 2; i++) {
      const answer: { body: TurnBody } = await client.json<TurnBody>(
        'POST',
        `${CORE}/llm/${agentId}/conversation`,
        {
          ...(conversationId ? { conversationId } : {}),
          message: queries[i % queries.length]!,
          model: 'fake-chat-instant',
        },
      );
      conversationId = answer.body.conversationId;
    }
    const page = `${CORE}/llm/${agentId}/conversation/${conversationId}/messages?limit=200`;
    for (let i = 0; i < 5; i++) await client.json('GET', page);
    const pages: number[] = [];
    for (let i = 0; i < 30; i++) pages.push((await client.json('GET', page)).ms);
    log(
      `long conversation: first page of 200 of ${longMessages} messages p50 ${median(pages).toFixed(2)} ms`,
    );
    const result = await measureLongConversation(client, agentId, conversationId!, longMessages, queries, {
      shortMessages: 10,
      turns: Number(process.env.LONG_TURNS ?? 60),
      block: 10,
      warmupTurns: 10,
      model: 'fake-chat-instant',
    });
    process.stdout.write(
      `${JSON.stringify({ firstPageP50Ms: Number(median(pages).toFixed(4)), ...result }, null, 2)}\n`,
    );
  } finally {
    client.agent.destroy();
    for (const child of children.reverse()) await stop(child);
    dir.remove();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((error: unknown) => {
    process.stderr.write(`long-conversation bench failed: ${String(error)}\n`);
    process.exit(1);
  });
