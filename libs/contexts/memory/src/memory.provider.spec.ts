import type { CommandBus } from '@nestjs/cqrs';
import type { AnsweredTurn, TurnContext } from '#conversations';
import type { ReadYourWritesBus } from '#eventsourcing';
import type { ModelGateway } from '#model-gateway';
import type { MemoryEmbeddings } from './memory-embeddings.js';
import type { MemoryScreening } from './memory-screening.js';
import type { MemoryReader } from './memory.reader.js';
import { MemoryContextProvider } from './memory.provider.js';

/** A provider over fakes of its ports: the gateway answers the extraction (or hangs until aborted). */
function setUp(options: { hang?: boolean; answerAsked?: Promise<void> } = {}) {
  const steps: string[] = [];
  const signals: AbortSignal[] = [];
  const gateway = {
    registry: { get: () => ({ key: 'chat', kind: 'chat' }) },
    chat: async (
      _scope: unknown,
      _model: unknown,
      request: { messages: { content: string }[] },
      signal: AbortSignal,
    ) => {
      steps.push('extraction call');
      signals.push(signal);
      expect(request.messages[1]!.content).toContain('What is my name?');
      if (options.hang)
        await new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
      return { message: { content: '[]' } };
    },
  } as unknown as ModelGateway;
  const bus = {
    execute: async (command: object) => {
      steps.push(command.constructor.name);
      return { position: 0 };
    },
  } as unknown as CommandBus;
  const provider = new MemoryContextProvider(
    { memories: async () => [] } as unknown as MemoryReader,
    bus,
    {} as ReadYourWritesBus,
    {} as MemoryEmbeddings,
    {} as MemoryScreening,
    gateway,
  );
  const client = new AbortController();
  const turn = {
    agent: {
      id: 'agt_1',
      model: 'chat',
      memoryEnabled: true,
      sharedMemoryEnabled: false,
      isPublic: false,
      isPersonal: false,
      spaceId: 'spc_1',
    },
    caller: { userId: 'usr_1', apiKey: { id: 'key_1' } },
    conversationId: 'cnv_1',
    messageId: 'msg_1',
    query: 'What is my name?',
    keepsTraces: true,
    streamed: false,
    signal: client.signal,
    answerAsked: options.answerAsked ?? Promise.resolve(),
  } as unknown as TurnContext;
  return { steps, signals, provider, turn, client };
}

const nextTurnOfLoop = () => new Promise((resolve) => setImmediate(resolve));

describe('MemoryContextProvider: extraction alongside the answer', () => {
  it("makes the extraction's model call beside the answer's, and records the recall only once the answer is", async () => {
    const { steps, provider, turn } = setUp();
    let recordAnswer!: () => void;
    const recorded = new Promise<void>((resolve) => {
      recordAnswer = () => {
        steps.push('answer recorded');
        resolve();
      };
    });
    expect(await provider.contribute(turn)).toBeNull();
    await nextTurnOfLoop();
    // The answer is not written yet: the extraction is already under way.
    expect(steps).toEqual(['extraction call']);
    const answered: AnsweredTurn = {
      answerId: 'msg_2',
      answer: 'I do not know yet.',
      status: 'complete',
      items: [],
      recorded,
    };
    const working = provider.afterAnswer(turn, answered);
    await nextTurnOfLoop();
    expect(steps).toEqual(['extraction call']);
    recordAnswer();
    expect(await working).toBeNull();
    // One model call for the turn: the one started with it; nothing was recalled, so no recall is recorded.
    expect(steps).toEqual(['extraction call', 'answer recorded']);
  });

  it("sends the extraction's model call only once the answer's is under way, and none for a turn ended before", async () => {
    let askAnswer!: () => void;
    const asked = setUp({ answerAsked: new Promise((resolve) => (askAnswer = resolve)) });
    await asked.provider.contribute(asked.turn);
    await nextTurnOfLoop();
    expect(asked.steps).toEqual([]);
    askAnswer();
    await nextTurnOfLoop();
    expect(asked.steps).toEqual(['extraction call']);

    let endTurn!: () => void;
    const ended = setUp({ answerAsked: new Promise((resolve) => (endTurn = resolve)) });
    await ended.provider.contribute(ended.turn);
    // The turn ends before its answer is asked (its answer loop never started): in one task it settles answerAsked
    // and abandons its providers, as the turn's `finally` does.
    endTurn();
    ended.provider.abandon(ended.turn);
    await nextTurnOfLoop();
    expect(ended.steps).toEqual([]);
  });

  it('aborts the extraction of a turn that ends without a complete answer, and records nothing', async () => {
    const { steps, signals, provider, turn } = setUp({ hang: true });
    await provider.contribute(turn);
    await nextTurnOfLoop();
    expect(signals[0]!.aborted).toBe(false);
    provider.abandon(turn);
    expect(signals[0]!.aborted).toBe(true);
    await nextTurnOfLoop();
    expect(steps).toEqual(['extraction call']);
  });

  it('aborts the extraction when the turn is aborted (the client left, the message was not posted)', async () => {
    const { signals, provider, turn, client } = setUp({ hang: true });
    await provider.contribute(turn);
    await nextTurnOfLoop();
    client.abort();
    expect(signals[0]!.aborted).toBe(true);
  });

  it('aborts the extraction of an incomplete answer and saves nothing from it', async () => {
    const { steps, signals, provider, turn } = setUp({ hang: true });
    await provider.contribute(turn);
    await nextTurnOfLoop();
    const answered: AnsweredTurn = {
      answerId: 'msg_2',
      answer: 'I do not',
      status: 'incomplete',
      items: [],
      recorded: Promise.resolve(),
    };
    expect(await provider.afterAnswer(turn, answered)).toBeNull();
    expect(signals[0]!.aborted).toBe(true);
    expect(steps).toEqual(['extraction call']);
  });
});
