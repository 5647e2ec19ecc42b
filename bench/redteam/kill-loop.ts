// kill -9 during write bursts, as the red team ran it: each round starts the api, fires creates that each carry an
// Idempotency-Key, kills the api at a random moment, restarts it and retries every request that got no answer with
// the same key. At the end: every acknowledged create is there (0 lost) and no name exists twice (0 duplicated).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, log, report, startApi, type RunningApi } from './harness.js';

const CORE = '/api/v1/core';

// A first attempt counts as running for this long after it started: a retry meanwhile is 409 (then tried again).
const ENV = { IDEMPOTENCY_IN_FLIGHT_MS: '1000' };

export async function killLoop(dataDir: string, rounds = 20, writers = 6): Promise<void> {
  let api: RunningApi = await startApi(dataDir, ENV);
  const space = await call(api.base, 'POST', `${CORE}/spaces`, { body: { name: `Kill loop ${Date.now()}` } });
  const spaceId = space.body.id as string;
  const acknowledged = new Map<string, string>(); // name → id
  let retried = 0;
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    const unanswered: { name: string; key: string }[] = [];
    let stopped = false;
    const writer = async (worker: number) => {
      for (let i = 0; !stopped; i++) {
        const name = `r${round}-w${worker}-${i}`;
        const key = randomUUID();
        sent++;
        const reply = await call(api.base, 'POST', `${CORE}/agents`, {
          body: { spaceId, name },
          headers: { 'idempotency-key': key },
          timeoutMs: 10_000,
        });
        if (reply.status === 201) acknowledged.set(name, reply.body.id);
        else {
          unanswered.push({ name, key });
          if (reply.status === 0) return;
        }
      }
    };
    const running = Array.from({ length: writers }, (_, worker) => writer(worker));
    await sleep(150 + Math.random() * 600);
    await api.kill();
    stopped = true;
    await Promise.all(running);
    api = await startApi(dataDir, ENV);
    for (const { name, key } of unanswered) {
      retried++;
      for (let attempt = 0; attempt < 20; attempt++) {
        const reply = await call(api.base, 'POST', `${CORE}/agents`, {
          body: { spaceId, name },
          headers: { 'idempotency-key': key },
        });
        if (reply.status === 201) {
          acknowledged.set(name, reply.body.id);
          break;
        }
        // 409: the first attempt is still recorded as running; wait for it to be given up
        await sleep(reply.status === 409 ? 500 : 100);
      }
    }
    log(`round ${round + 1}/${rounds}: ${acknowledged.size} acknowledged, ${unanswered.length} retried`);
  }
  const names = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const page = await call(
      api.base,
      'GET',
      `${CORE}/agents?spaceId=${spaceId}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const agent of page.body.data as { name: string }[])
      names.set(agent.name, (names.get(agent.name) ?? 0) + 1);
    cursor = page.body.nextCursor as string | null;
  } while (cursor);
  const lost = [...acknowledged.keys()].filter((name) => !names.has(name));
  const duplicated = [...names].filter(([, n]) => n > 1);
  report(`kill -9 × ${rounds} during write bursts, unanswered requests retried with their Idempotency-Key`, {
    'requests sent': sent,
    'retried after a restart': retried,
    acknowledged: acknowledged.size,
    'agents listed': [...names.values()].reduce((sum, n) => sum + n, 0),
    lost: lost.length,
    duplicated: duplicated.length,
    ...(duplicated.length ? { 'duplicated names (first 5)': duplicated.slice(0, 5) } : {}),
  });
  await api.stop();
}
