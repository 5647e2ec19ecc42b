// The watcher of synced resources (runtime state only): for each MCP App that has synced documents (the synced
// resources process's documents, read after each batch that process applies and on an interval), one long-lived
// connection subscribed (`resources/subscribe`) to each synced URI, where the server declares `resources.subscribe`.
// An update the server announces for one of them, or a change of its resource list, syncs the App as
// `POST /apps/{appId}/sync` does (SyncAppResources, as the platform), at most once a second per App. A connection that
// fails is opened again with backoff (and the App synced, for what changed meanwhile); the App deleted or its last
// synced document gone closes it. An App that signs in each person (OAuth) is skipped: a sync runs as no one. Nothing
// here blocks start-up, and a failure is logged, never thrown.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import { platformPrincipal } from '#access';
import { AggregateRepository, ProjectionRunner } from '#eventsourcing';
import { LOGGER, PLATFORM_CONFIG, SYSTEM_ACTOR, type PlatformConfig } from '#kernel';
import { READ_STORE, type Page, type ReadStore } from '#read-store';
import { appDecider } from '../../app.decider.js';
import { appStreamId } from '../../app.events.js';
import { SyncAppResources } from '../../commands/sync-app-resources/sync-app-resources.command.js';
import type { McpConnection } from '../mcp-client.js';
import { McpServers } from '../mcp-servers.js';
import {
  SYNCED_RESOURCES,
  SYNCED_RESOURCES_PROCESS,
  type SyncedResource,
} from './synced-resources.process.js';

const PLATFORM = platformPrincipal('mcp-resource-watcher');
const DEBOUNCE_MS = 1_000;
const RECONCILE_MS = 15_000;
const BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
/** A server that offers no subscriptions, or an App skipped, is asked again after this long. */
const SKIP_MS = 10 * 60_000;
const PAGE = 500;

interface Watch {
  connection: McpConnection | null;
  opening: boolean;
  readonly subscribed: Set<string>;
  /** Failed opens in a row: the backoff's step. */
  failures: number;
  retryAt: number;
  /** The connection was lost: the App is synced once it is back, for what changed meanwhile. */
  lost: boolean;
}

@Injectable()
export class McpResourceWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly watches = new Map<string, Watch>();
  private readonly syncs = new Map<string, { timer?: NodeJS.Timeout; running?: boolean; again?: boolean }>();
  private readonly enabled: boolean;
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<void> | null = null;
  private rerun = false;
  private stopped = false;
  private readonly onProgress = (progress: { name: string; applied: boolean }) => {
    if (progress.name === SYNCED_RESOURCES_PROCESS && progress.applied) this.reconcile();
  };

  constructor(
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly aggregates: AggregateRepository,
    private readonly servers: McpServers,
    private readonly bus: CommandBus,
    private readonly runner: ProjectionRunner,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.enabled = config.apps.mcpResourceSubscriptions;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.runner.on('progress', this.onProgress);
    this.timer = setInterval(() => this.reconcile(), RECONCILE_MS);
    this.timer.unref();
    this.reconcile();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.runner.off('progress', this.onProgress);
    if (this.timer) clearInterval(this.timer);
    for (const sync of this.syncs.values()) clearTimeout(sync.timer);
    await this.reconciling;
    // Closed without unsubscribing: a slow server must not hold the shutdown, and its session ends with the connection.
    await Promise.all([...this.watches.keys()].map((appId) => this.drop(appId, false)));
  }

  /** Brings the connections in line with the synced resources; one pass at a time, one more if asked meanwhile. */
  reconcile(): void {
    if (this.stopped) return;
    if (this.reconciling) {
      this.rerun = true;
      return;
    }
    this.reconciling = (async () => {
      do {
        this.rerun = false;
        await this.reconcileOnce();
      } while (this.rerun && !this.stopped);
    })()
      .catch((error: unknown) =>
        this.logger.error({ reason: reason(error) }, 'the MCP resource watcher could not reconcile'),
      )
      .finally(() => (this.reconciling = null));
  }

  private async reconcileOnce(): Promise<void> {
    const wanted = await this.syncedResources();
    for (const appId of [...this.watches.keys()]) if (!wanted.has(appId)) await this.drop(appId);
    const now = Date.now();
    for (const [appId, uris] of wanted) {
      const watch = this.watches.get(appId) ?? this.newWatch(appId);
      if (watch.opening) continue;
      if (watch.connection && !(await watch.connection.alive())) await this.lose(appId, watch, 'no answer');
      if (!watch.connection && now >= watch.retryAt) await this.open(appId, watch);
      if (watch.connection) await this.subscribe(appId, watch, uris);
    }
  }

  private newWatch(appId: string): Watch {
    const watch: Watch = {
      connection: null,
      opening: false,
      subscribed: new Set(),
      failures: 0,
      retryAt: 0,
      lost: false,
    };
    this.watches.set(appId, watch);
    return watch;
  }

  /** Every synced resource, by App. */
  private async syncedResources(): Promise<Map<string, Set<string>>> {
    const byApp = new Map<string, Set<string>>();
    const reader = this.readStore.reader<SyncedResource>(SYNCED_RESOURCES);
    let cursor: string | null = null;
    do {
      const page: Page<SyncedResource> = await reader.find({}, { limit: PAGE, cursor });
      for (const { appId, uri } of page.data) byApp.set(appId, (byApp.get(appId) ?? new Set()).add(uri));
      cursor = page.nextCursor;
    } while (cursor);
    return byApp;
  }

  private async open(appId: string, watch: Watch): Promise<void> {
    watch.opening = true;
    try {
      const { state } = await this.aggregates.load(appStreamId(appId), appDecider);
      if (state.status !== 'active' || state.source.type !== 'mcp')
        return this.skip(watch, appId, 'it is not an active MCP App');
      if (state.source.auth === 'oauth')
        return this.skip(watch, appId, 'it signs in each person, and a sync runs as no one');
      const connection = await this.servers.connect(appId, state.source);
      if (!connection.subscribable) {
        await connection.close();
        return this.skip(watch, appId, 'its server offers no resource subscriptions');
      }
      await connection.watchResources(
        (uri) => this.changed(appId, uri),
        (trouble) => void this.troubled(appId, connection, trouble),
      );
      watch.connection = connection;
      watch.failures = 0;
      this.logger.info({ appId }, 'watching the resources of an MCP App');
      if (watch.lost) {
        watch.lost = false;
        this.changed(appId, null);
      }
    } catch (error) {
      watch.failures += 1;
      watch.lost = true;
      watch.retryAt = Date.now() + BACKOFF_MS[Math.min(watch.failures, BACKOFF_MS.length) - 1]!;
      if (watch.failures === 1)
        this.logger.warn({ appId, reason: reason(error) }, "an MCP App's resources cannot be watched now");
      setTimeout(() => this.reconcile(), watch.retryAt - Date.now()).unref();
    } finally {
      watch.opening = false;
    }
  }

  private skip(watch: Watch, appId: string, why: string): void {
    watch.retryAt = Date.now() + SKIP_MS;
    this.logger.info({ appId, reason: why }, "an MCP App's synced resources are not watched");
  }

  private async subscribe(appId: string, watch: Watch, uris: Set<string>): Promise<void> {
    const connection = watch.connection!;
    try {
      for (const uri of uris)
        if (!watch.subscribed.has(uri)) {
          await connection.subscription(uri, true);
          watch.subscribed.add(uri);
        }
      for (const uri of [...watch.subscribed])
        if (!uris.has(uri)) {
          watch.subscribed.delete(uri);
          await connection.subscription(uri, false);
        }
    } catch (error) {
      await this.lose(appId, watch, reason(error));
    }
  }

  /** The connection reported an error: it is dropped (and opened again) unless the server still answers on it. */
  private async troubled(appId: string, connection: McpConnection, trouble: string): Promise<void> {
    const watch = this.watches.get(appId);
    if (!watch || watch.connection !== connection || (await connection.alive())) return;
    await this.lose(appId, watch, trouble);
    this.reconcile();
  }

  private async lose(appId: string, watch: Watch, trouble: string): Promise<void> {
    const connection = watch.connection;
    if (!connection) return;
    watch.connection = null;
    watch.subscribed.clear();
    watch.lost = true;
    this.logger.warn({ appId, reason: trouble }, "the connection watching an MCP App's resources was lost");
    await connection.close();
  }

  private async drop(appId: string, unsubscribe = true): Promise<void> {
    const watch = this.watches.get(appId);
    this.watches.delete(appId);
    clearTimeout(this.syncs.get(appId)?.timer);
    this.syncs.delete(appId);
    if (watch?.connection) {
      // The server forgets the subscriptions at once, not when it next times the session out.
      if (unsubscribe)
        for (const uri of watch.subscribed)
          await watch.connection.subscription(uri, false).catch(() => undefined);
      await watch.connection.close();
      this.logger.info({ appId }, 'stopped watching the resources of an MCP App');
    }
  }

  /** The server announced a change (a subscribed resource's URI, or null for its list): a sync is due. */
  private changed(appId: string, uri: string | null): void {
    const watch = this.watches.get(appId);
    if (!watch || this.stopped || (uri !== null && watch.connection && !watch.subscribed.has(uri))) return;
    const sync = this.syncs.get(appId) ?? {};
    this.syncs.set(appId, sync);
    if (sync.running) sync.again = true;
    else sync.timer ??= setTimeout(() => void this.sync(appId), DEBOUNCE_MS);
  }

  private async sync(appId: string): Promise<void> {
    const sync = this.syncs.get(appId);
    if (!sync) return;
    sync.timer = undefined;
    sync.running = true;
    const context = { actor: SYSTEM_ACTOR, correlationId: randomUUID(), now: () => new Date() };
    try {
      await this.bus.execute(new SyncAppResources(appId, context, PLATFORM));
    } catch (error) {
      this.logger.warn(
        { appId, reason: reason(error) },
        'an MCP App could not be synced after its server said',
      );
    } finally {
      sync.running = false;
      if (sync.again && this.syncs.get(appId) === sync) {
        sync.again = false;
        this.changed(appId, null);
      }
    }
  }
}

const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));
