import type { Logger } from 'pino';
import type { AnsweredTurn, ContextProvider, TurnContext } from './context-providers.js';
import type { TurnEmitter } from './turn-events.js';
import { afterAnswer } from './turn-providers.js';

const turn = { conversationId: 'cnv_1' } as unknown as TurnContext;

/** A promise settled from outside, as the record of an answer is. */
const deferred = () => {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
};

const logger = () => {
  const warnings: unknown[] = [];
  return { warnings, logger: { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger };
};

const provider = (afterAnswer: ContextProvider['afterAnswer']): ContextProvider => ({
  name: 'memory',
  share: 0.1,
  contribute: async () => null,
  afterAnswer,
});

describe('afterAnswer', () => {
  it("starts the providers' work while the answer is recorded, and tells the client only once it is", async () => {
    const record = deferred();
    const seen: string[] = [];
    const emitted: string[] = [];
    const { logger: log } = logger();
    const emit: TurnEmitter = async (event) => {
      emitted.push(event.event === 'notice' ? event.name : event.event);
    };
    const working = afterAnswer(
      [
        provider(async (_turn, answered: AnsweredTurn) => {
          seen.push(`working on ${answered.answer}`);
          return { field: 'memory', value: { saved: [] } };
        }),
      ],
      log,
      turn,
      { answerId: 'msg_2', answer: 'the answer', status: 'complete', recorded: record.promise },
      new Map(),
      emit,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['working on the answer']);
    expect(emitted).toEqual([]);
    record.resolve();
    expect(await working).toEqual({ memory: { saved: [] } });
    expect(emitted).toEqual(['memory']);
  });

  it("fails with the record's error, logging and emitting nothing, when the answer could not be recorded", async () => {
    const record = deferred();
    const emitted: string[] = [];
    const { logger: log, warnings } = logger();
    const working = afterAnswer(
      [
        provider(async (_turn, answered) => {
          await answered.recorded;
          return null;
        }),
        provider(async () => ({ field: 'other', value: 1 })),
      ],
      log,
      turn,
      { answerId: 'msg_2', answer: 'the answer', status: 'complete', recorded: record.promise },
      new Map(),
      async (event) => {
        emitted.push(event.event);
      },
    );
    record.reject(new Error('append failed'));
    await expect(working).rejects.toThrow('append failed');
    expect(warnings).toEqual([]);
    expect(emitted).toEqual([]);
  });

  it('logs a provider that fails once the answer is recorded, and the answer stands', async () => {
    const { logger: log, warnings } = logger();
    const notices = await afterAnswer(
      [
        provider(async () => {
          throw new Error('extraction failed');
        }),
      ],
      log,
      turn,
      { answerId: 'msg_2', answer: 'the answer', status: 'complete', recorded: Promise.resolve() },
      new Map(),
      async () => undefined,
    );
    expect(notices).toEqual({});
    expect(warnings).toHaveLength(1);
  });
});
