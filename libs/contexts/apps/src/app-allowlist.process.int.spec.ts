// The allowlist process over a real read store: the Agents an App reaches follow its enablement and the Agents'
// lives; a global App reaches Agents created after it (personal ones included) and loses deleted ones; replaying an
// event changes nothing.
import type { DomainEvent } from '#kernel';
import { projectionHarness } from '#testing/projection-harness';
import { AppAllowlistProcess } from './app-allowlist.process.js';
import { APP_ALLOWLIST, type AppAllowlistEntry } from './apps.read-model.js';

const agentCreated = (agentId: string, isPersonal = false): DomainEvent => ({
  type: 'AgentCreated',
  data: { agentId, isPersonal, ownerUserId: isPersonal ? 'usr_1' : null, spaceId: null, name: agentId },
});
const appRegistered = (appId: string, enablement: unknown): DomainEvent => ({
  type: 'AppRegistered',
  data: {
    appId,
    name: appId,
    source: { type: 'url', url: 'http://127.0.0.1:1' },
    enablement,
    tokenHash: 'h',
  },
});

describe('the App allowlist process', () => {
  const allowlist = async (harness: Awaited<ReturnType<typeof projectionHarness>>, appId: string) =>
    (await harness.find<AppAllowlistEntry>(APP_ALLOWLIST, { appId })).data
      .map((entry) => entry.agentId)
      .sort();

  it('follows enablement and the Agents created and deleted; a replay changes nothing', async () => {
    const harness = await projectionHarness(new AppAllowlistProcess());
    const e = (event: DomainEvent) => harness.envelope(event);
    await harness.apply(e(agentCreated('a1')), e(agentCreated('a2')), e(agentCreated('p1', true)));
    await harness.apply(
      e(appRegistered('chosen', { kind: 'agents', agentIds: ['a1', 'unknown'] })),
      e(appRegistered('global', { kind: 'global' })),
    );
    expect(await allowlist(harness, 'chosen')).toEqual(['a1']);
    expect(await allowlist(harness, 'global')).toEqual(['a1', 'a2', 'p1']);

    const later = e(agentCreated('a3'));
    await harness.apply(later);
    expect(await allowlist(harness, 'global')).toEqual(['a1', 'a2', 'a3', 'p1']);
    expect(await allowlist(harness, 'chosen')).toEqual(['a1']);
    await harness.apply(later);
    expect(await harness.count(APP_ALLOWLIST)).toBe(5);

    await harness.apply(e({ type: 'AgentDeleted', data: { agentId: 'a1', reason: 'requested' } }));
    expect(await allowlist(harness, 'global')).toEqual(['a2', 'a3', 'p1']);
    expect(await allowlist(harness, 'chosen')).toEqual([]);

    await harness.apply(
      e({
        type: 'AppEnablementChanged',
        data: { appId: 'global', enablement: { kind: 'agents', agentIds: ['a2'] } },
      }),
      e({ type: 'AppEnablementChanged', data: { appId: 'chosen', enablement: { kind: 'global' } } }),
    );
    expect(await allowlist(harness, 'global')).toEqual(['a2']);
    expect(await allowlist(harness, 'chosen')).toEqual(['a2', 'a3', 'p1']);

    await harness.apply(e({ type: 'AppDeleted', data: { appId: 'chosen' } }));
    expect(await allowlist(harness, 'chosen')).toEqual([]);
    expect(await allowlist(harness, 'global')).toEqual(['a2']);
  });
});
