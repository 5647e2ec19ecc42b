// The record of session use and its refresher, over the real RefreshSession handler and an embedded event store: the
// guard only notes a use; a session whose stored time is a quarter of the idle timeout old is refreshed in the log
// once, off the request.
import type { PlatformConfig } from '#kernel';
import type { EventStore } from '#event-store';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store';
import { AggregateRepository, toNewEvents } from '#eventsourcing';
import { directCommandBus } from '#testing/direct-command-bus';
import {
  RefreshSession,
  RefreshSessionHandler,
} from '../commands/refresh-session/refresh-session.command.js';
import { sessionStreamId } from '../session.events.js';
import { SessionUse } from './session-use.js';

const IDLE = 40 * 60_000;
const config = { commandRetries: 3, people: { sessionIdleMs: IDLE } } as PlatformConfig;

describe('session use (the refresher of the idle timeout)', () => {
  let store: EventStore;
  let use: SessionUse;
  const types = async (sessionId: string) =>
    (await store.readStream(sessionStreamId(sessionId))).map((event) => event.type);

  beforeEach(async () => {
    store = new SqliteEventStore({ path: ':memory:' });
    const aggregates = new AggregateRepository(store, config);
    use = new SessionUse(directCommandBus([RefreshSession, new RefreshSessionHandler(aggregates)]), config);
    const started = {
      type: 'SessionStarted' as const,
      data: {
        sessionId: 'ses_1',
        userId: 'usr_1',
        method: 'password' as const,
        expiresAt: '2099-01-01T00:00:00.000Z',
        source: { address: null, userAgent: null },
      },
    };
    await store.appendToStream(
      sessionStreamId('ses_1'),
      toNewEvents([started], {
        actor: { kind: 'system', id: 'test' },
        correlationId: 'c1',
        now: () => new Date(),
      }),
      'no_stream',
    );
  });

  it('remembers the last use, and refreshes nothing while the stored time is recent', async () => {
    const persisted = Date.now();
    use.used('ses_1', persisted, persisted + IDLE / 8);
    expect(use.lastSeenAt('ses_1')).toBe(persisted + IDLE / 8);
    expect(use.lastSeenAt('ses_2')).toBe(0);
    await use.refresh();
    expect(await types('ses_1')).toEqual(['SessionStarted']);
  });

  it('refreshes a session once its stored time is a quarter idle old, once for uses noted together', async () => {
    const persisted = Date.now();
    use.used('ses_1', persisted, persisted + IDLE / 4);
    use.used('ses_1', persisted, persisted + IDLE / 4 + 1);
    await use.refresh();
    expect(await types('ses_1')).toEqual(['SessionStarted', 'SessionRefreshed']);
  });

  it('sends what is due at shutdown', async () => {
    const persisted = Date.now();
    use.used('ses_1', persisted, persisted + IDLE);
    await use.beforeApplicationShutdown();
    expect(await types('ses_1')).toEqual(['SessionStarted', 'SessionRefreshed']);
  });
});
