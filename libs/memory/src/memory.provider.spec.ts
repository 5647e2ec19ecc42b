import type { CommandBus } from '@nestjs/cqrs';
import type { AnsweredTurn, TurnContext } from '#conversations';
import type { ReadYourWritesBus } from '#eventsourcing';
import type { ModelGateway } from '#model-gateway';
import type { MemoryEmbeddings } from './memory-embeddings.js';
import type { MemoryScreening } from './memory-screening.js';
import type { MemoryReader } from './memory.reader.js';
import { MemoryContextProvider } from './memory.provider.js';

describe('MemoryContextProvider.afterAnswer', () => {
  it("makes the extraction's model call while the answer is recorded, and records the recall only after it", async () => {
    const steps: string[] = [];
    let recordAnswer!: () => void;
    const recorded = new Promise<void>((resolve) => {
      recordAnswer = () => {
        steps.push('answer recorded');
        resolve();
      };
    });
    const gateway = {
      registry: { get: () => ({ key: 'chat', kind: 'chat' }) },
      chat: async () => {
        steps.push('extraction call');
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
      {} as MemoryReader,
      bus,
      {} as ReadYourWritesBus,
      {} as MemoryEmbeddings,
      {} as MemoryScreening,
      gateway,
    );
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
    } as unknown as TurnContext;
    const answered: AnsweredTurn = {
      answerId: 'msg_2',
      answer: 'I do not know yet.',
      status: 'complete',
      items: [],
      recorded,
    };
    const working = provider.afterAnswer(turn, answered);
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toEqual(['extraction call']);
    recordAnswer();
    expect(await working).toBeNull();
    expect(steps).toEqual(['extraction call', 'answer recorded', 'RecordMemoryRecall']);
  });
});
