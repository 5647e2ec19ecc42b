import { InProcessMessageBus } from './in-process-message-bus.js';
import { messageBusContract } from './message-bus.contract.js';
import type { BusMessage } from './message-bus.port.js';

messageBusContract(
  'in-process',
  async ({ maxAttempts, log }) => new InProcessMessageBus({ maxAttempts, log }),
);

const message = (id: string, key = 'agent-1'): BusMessage => ({
  id,
  key,
  type: 'AgentCreated.v1',
  value: { id },
});

const quiet = (): void => undefined;

describe('InProcessMessageBus', () => {
  it('gives every group each message once, in order, and shares a group between its consumers', async () => {
    const bus = new InProcessMessageBus({ log: quiet });
    const audit: string[] = [];
    const workerA: string[] = [];
    const workerB: string[] = [];
    await bus.consume({ topic: 't', group: 'audit', handle: async (m) => void audit.push(m.id) });
    await bus.consume({ topic: 't', group: 'workers', handle: async (m) => void workerA.push(m.id) });
    await bus.consume({ topic: 't', group: 'workers', handle: async (m) => void workerB.push(m.id) });
    await bus.publish('t', [message('1'), message('2'), message('3'), message('4')]);
    expect(audit).toEqual(['1', '2', '3', '4']);
    expect([...workerA, ...workerB].sort()).toEqual(['1', '2', '3', '4']);
    expect(workerA.length).toBe(2);
    await bus.publish('other-topic', [message('5')]);
    expect(audit).toHaveLength(4);
    await bus.close();
  });

  it('retries a failing handler, delivering at least once', async () => {
    const bus = new InProcessMessageBus({ maxAttempts: 3, log: quiet });
    let calls = 0;
    await bus.consume({
      topic: 't',
      group: 'g',
      handle: async () => {
        calls += 1;
        if (calls < 3) throw new Error('transient');
      },
    });
    await bus.publish('t', [message('1')]);
    expect(calls).toBe(3);
  });

  it('keeps delivering to a group after giving up a message, and publish still resolves', async () => {
    const bus = new InProcessMessageBus({ maxAttempts: 2, retryBackoffMs: 0, log: quiet });
    const delivered: string[] = [];
    await bus.consume({
      topic: 't',
      group: 'g',
      handle: async (m) => {
        if (m.id === 'poisoned') throw new Error('cannot handle');
        delivered.push(m.id);
      },
    });
    await expect(bus.publish('t', [message('poisoned'), message('2')])).resolves.toBeUndefined();
    await bus.publish('t', [message('3')]);
    expect(delivered).toEqual(['2', '3']);
    await bus.close();
  });
});
