// The offline chat model answers a big request in a worker thread (offline-pool.ts) as it answers a small one in the
// calling thread: the worker imports the module that registered the contexts' responders before its first task.
// It runs the compiled build in a child process, as production does (built by `pretest`; run `npm run build` first
// when calling jest directly): from the TypeScript sources there is no compiled worker, and every task runs inline.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { formatSourcesBlock, OFFLINE_GROUNDED_PREFIX } from '#conversations';
import type { ChatRequest, ChatResult } from '#model-providers';
import { offlineChat } from '#model-providers/offline/offline-chat';
import { INLINE_CHARS } from '#model-providers/offline/offline-pool';
import './offline-responders.js';

const ROOT = new URL('../../', import.meta.url);
const WORKER = new URL('dist/libs/adapters/model-providers/src/offline/offline-worker.js', ROOT);

/** A question and sources over INLINE_CHARS characters: the pool sends it to a worker thread. */
const bigGroundedRequest = (): ChatRequest => ({
  messages: [
    {
      role: 'system',
      content: formatSourcesBlock([
        {
          index: 1,
          documentName: 'Volcanoes',
          sectionPath: ['Europe'],
          text: 'Mount Etna is the tallest active volcano in Europe.',
        },
        {
          index: 2,
          documentName: 'Gardens',
          sectionPath: [],
          text: 'Compost feeds the soil of a kitchen garden. '.repeat(500),
        },
      ]),
    },
    { role: 'user', content: 'Which volcano is the tallest in Europe?' },
  ],
});

/** The answer the compiled offline pool gives in a child process that registered the responders as apps do. */
const answerInChild = async (request: ChatRequest): Promise<ChatResult> => {
  const dir = mkdtempSync(join(tmpdir(), 'offline-worker-'));
  try {
    const script = join(dir, 'probe.mjs');
    writeFileSync(
      script,
      [
        `await import(${JSON.stringify(new URL('dist/apps/offline/offline-responders.js', ROOT).href)});`,
        `const { runOffline } = await import(${JSON.stringify(new URL('dist/libs/adapters/model-providers/src/index.js', ROOT).href)});`,
        `const request = JSON.parse(process.argv[2]);`,
        `process.stdout.write(JSON.stringify(await runOffline({ op: 'chat', request })));`,
      ].join('\n'),
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script, JSON.stringify(request)], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as ChatResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

beforeAll(() => {
  if (!existsSync(fileURLToPath(WORKER)))
    throw new Error(
      `${fileURLToPath(WORKER)} is missing: run \`npm run build\` (npm test does it in pretest)`,
    );
});

describe('Offline worker threads', () => {
  it('answer a big request with the registered responders, as the calling thread does', async () => {
    const request = bigGroundedRequest();
    expect(JSON.stringify(request.messages).length).toBeGreaterThan(INLINE_CHARS);
    const inThisThread = offlineChat(request);
    expect(inThisThread.message.content).toBe(
      `${OFFLINE_GROUNDED_PREFIX}Mount Etna is the tallest active volcano in Europe. [1]`,
    );
    expect(await answerInChild(request)).toEqual(inThisThread);
  });
});
