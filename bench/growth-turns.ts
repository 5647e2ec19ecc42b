// The two timed parts of the growth bench (growth.ts): a turn against the gateway call with the prompt it builds, at
// one Knowledge size, and a turn in one conversation as it grows through the given lengths.
import { formatSourcesBlock } from '#conversations';
import { seededRandom } from '#kernel';
import { memoryOf } from './api-startup.js';
import {
  type Client,
  COMPAT_CHAT,
  CORE,
  expectStatus,
  type Hit,
  latencies,
  REPLY,
  type TurnResult,
} from './conversations.js';
import { Prose } from './knowledge.js';
import { log, median } from './util.js';

/** Sequential turns and gateway calls measured, in alternating blocks of `block`, after `warmupTurns` of each. */
export interface TurnTiming {
  readonly turns: number;
  readonly block: number;
  readonly warmupTurns: number;
}

/** A conversation's turn p50 at a length, and the api's RSS then. */
export interface ConversationStep {
  readonly messages: number;
  readonly turnP50Ms: number;
  readonly rssMb: number;
}

/** Turn p50 − gateway p50 (the prompt the turn builds), alternating blocks; the Knowledge search alone beside. */
export async function turnVsGateway(
  client: Client,
  agentId: string,
  systemPrompt: string,
  options: TurnTiming,
): Promise<{ turnP50Ms: number; gatewayP50Ms: number; addedMs: number; searchP50Ms: number }> {
  const prose = new Prose(seededRandom(99));
  const count = options.warmupTurns + options.turns;
  const queries = Array.from(
    { length: count },
    () => `What do the documents say about ${prose.query(prose.topic())}?`,
  );
  const search = async (query: string) => {
    const answer = await client.json<{ hits: Hit[] }>('POST', `${CORE}/knowledge/${agentId}/search`, {
      query,
      limit: 8,
    });
    expectStatus('search', answer, 200);
    return answer;
  };
  const bodies: unknown[] = [];
  for (const query of queries) {
    const { hits } = (await search(query)).body;
    const sources = formatSourcesBlock(
      hits.map((hit, i) => ({
        index: i + 1,
        documentName: hit.documentName,
        sectionPath: hit.sectionPath,
        text: hit.text,
      })),
    );
    bodies.push({
      model: 'fake-chat',
      messages: [
        { role: 'system', content: systemPrompt },
        { role: 'system', content: sources },
        { role: 'user', content: query },
      ],
    });
  }
  const times = { turn: [] as number[], gateway: [] as number[], search: [] as number[] };
  const paths: [keyof typeof times, (i: number) => Promise<number>][] = [
    [
      'turn',
      async (i) => {
        const answer = await client.json<TurnResult>('POST', `${CORE}/llm/${agentId}/conversation`, {
          message: queries[i]!,
        });
        expectStatus('a conversation turn', answer, 201);
        if (answer.body.message.content !== REPLY)
          throw new Error(`unexpected turn answer: ${answer.raw.slice(0, 300)}`);
        return answer.ms;
      },
    ],
    [
      'gateway',
      async (i) => {
        const answer = await client.json('POST', COMPAT_CHAT, bodies[i]);
        expectStatus('the gateway', answer, 200);
        return answer.ms;
      },
    ],
    ['search', async (i) => (await search(queries[i]!)).ms],
  ];
  for (let i = 0; i < options.warmupTurns; i++) for (const [, path] of paths) await path(i);
  for (let from = options.warmupTurns, round = 0; from < count; from += options.block, round++) {
    const order = [...paths];
    for (let r = 0; r < round % 3; r++) order.push(order.shift()!);
    for (const [name, path] of order)
      for (let i = from; i < Math.min(count, from + options.block); i++) times[name].push(await path(i));
  }
  const turnP50Ms = latencies(times.turn).p50;
  const gatewayP50Ms = latencies(times.gateway).p50;
  return {
    turnP50Ms,
    gatewayP50Ms,
    addedMs: turnP50Ms - gatewayP50Ms,
    searchP50Ms: latencies(times.search).p50,
  };
}

/** One conversation grown through each length in turn (instant upstream); the turn p50 at each, and the api's RSS. */
export async function conversationGrowth(
  client: Client,
  agentId: string,
  apiPid: number,
  options: { readonly conversationMessages: readonly number[]; readonly conversationTurns: number },
): Promise<ConversationStep[]> {
  const prose = new Prose(seededRandom(7));
  let conversationId: string | null = null;
  let messages = 0;
  const turn = async () => {
    const answer: Awaited<ReturnType<typeof client.json<TurnResult>>> = await client.json<TurnResult>(
      'POST',
      `${CORE}/llm/${agentId}/conversation`,
      {
        ...(conversationId ? { conversationId } : {}),
        message: `What do the documents say about ${prose.query(prose.topic())}?`,
        model: 'fake-chat-instant',
      },
    );
    expectStatus('a growing conversation turn', answer, 200, 201);
    conversationId = answer.body.conversationId;
    messages += 2;
    return answer.ms;
  };
  const steps: ConversationStep[] = [];
  for (const target of options.conversationMessages) {
    const at = performance.now();
    while (messages < target) await turn();
    const times: number[] = [];
    for (let i = 0; i < options.conversationTurns; i++) times.push(await turn());
    const step = { messages: target, turnP50Ms: median(times), rssMb: memoryOf(apiPid).rssMb };
    steps.push(step);
    log(
      `growth: ${target}-message conversation (grown in ${((performance.now() - at) / 1000).toFixed(1)} s): turn ` +
        `p50 ${step.turnP50Ms.toFixed(2)} ms, api RSS ${step.rssMb.toFixed(0)} MB`,
    );
  }
  return steps;
}
