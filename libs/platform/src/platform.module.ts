// Infrastructure for every context: configuration, the event and read stores chosen by configuration, the
// projection runner and waiter, logging and the command runner. Global, so feature modules only list their own parts.
import { join } from 'node:path';
import {
  Global,
  Inject,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type Provider,
  type Type,
} from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { Logger } from 'pino';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../kernel/src/index.js';
import { EVENT_STORE, type EventStore } from '../../event-store/src/event-store.port.js';
import { SqliteEventStore } from '../../event-store/src/sqlite/sqlite-event-store.js';
import { UpcasterRegistry } from '../../event-store/src/upcasters.js';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port.js';
import { SqliteReadStore } from '../../read-store/src/sqlite/sqlite-read-store.js';
import { processLeaseOwner, ProjectionRunner } from '../../eventsourcing/src/projection-runner.js';
import { ProjectionWaiter } from '../../eventsourcing/src/projection-waiter.js';
import { PROJECTORS, type Projector } from '../../eventsourcing/src/projector.js';
import { ModelRegistry } from '../../models/src/model-registry.js';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port.js';
import { openBlobStore } from '../../blob-store/src/open-blob-store.js';
import { SEARCH_INDEX, type SearchIndex } from '../../search/src/search-index.port.js';
import { SqliteSearchIndex } from '../../search/src/sqlite/sqlite-search-index.js';
import { MESSAGE_BUS, type MessageBus } from '../../message-bus/src/message-bus.port.js';
import { openMessageBus } from '../../message-bus/src/open-message-bus.js';
import { CommandRunner, ReadYourWrites } from './command-runner.js';
import { createLogger, LOGGER } from './logger.js';

export interface PlatformModuleOptions {
  readonly config: PlatformConfig;
  /** Projector objects, or injectable classes (process managers that send commands). */
  readonly projectors: readonly (Projector | Type<Projector>)[];
  readonly logger?: Logger;
}

export const UPCASTERS = Symbol('UPCASTERS');

async function openEventStore(config: PlatformConfig, upcasters: UpcasterRegistry): Promise<EventStore> {
  if (config.eventStore === 'kurrentdb') {
    const { KurrentDbEventStore } = await import('../../event-store/src/kurrentdb/kurrentdb-event-store.js');
    return new KurrentDbEventStore({ connectionString: config.kurrentDbUrl!, upcasters });
  }
  return new SqliteEventStore({ path: join(config.dataDir, 'events.db'), upcasters });
}

async function openSearchIndex(config: PlatformConfig): Promise<SearchIndex> {
  if (config.searchIndex === 'elasticsearch') {
    const { ElasticsearchSearchIndex } =
      await import('../../search/src/elasticsearch/elasticsearch-search-index.js');
    return new ElasticsearchSearchIndex({ client: config.elasticsearchUrl! });
  }
  return new SqliteSearchIndex({ path: join(config.dataDir, 'search.db') });
}

async function openReadStore(config: PlatformConfig): Promise<ReadStore> {
  if (config.readStore === 'mongodb') {
    const { MongoReadStore } = await import('../../read-store/src/mongodb/mongo-read-store.js');
    return MongoReadStore.connect({ uri: config.mongodbUri! });
  }
  return new SqliteReadStore({ path: join(config.dataDir, 'read.db') });
}

@Global()
@Module({})
export class PlatformModule implements OnApplicationShutdown {
  constructor(
    private readonly runner: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(BLOB_STORE) private readonly blobStore: BlobStore,
    @Inject(SEARCH_INDEX) private readonly searchIndex: SearchIndex,
    @Inject(MESSAGE_BUS) private readonly messageBus: MessageBus,
  ) {}

  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const projectorTokens: (Type<Projector> | string)[] = [];
    const projectorProviders: Provider[] = options.projectors.map((projector) => {
      if (typeof projector === 'function') {
        projectorTokens.push(projector);
        return projector;
      }
      const token = `projector:${projector.name}`;
      projectorTokens.push(token);
      return { provide: token, useValue: projector };
    });
    const logger = options.logger ?? createLogger(options.config);
    const providers: Provider[] = [
      { provide: PLATFORM_CONFIG, useValue: options.config },
      { provide: LOGGER, useValue: logger },
      { provide: UPCASTERS, useValue: new UpcasterRegistry() },
      { provide: EVENT_STORE, useFactory: openEventStore, inject: [PLATFORM_CONFIG, UPCASTERS] },
      { provide: READ_STORE, useFactory: openReadStore, inject: [PLATFORM_CONFIG] },
      ...projectorProviders,
      {
        provide: PROJECTORS,
        useFactory: (...projectors: Projector[]) => projectors,
        inject: projectorTokens,
      },
      {
        provide: ProjectionRunner,
        useFactory: (
          eventStore: EventStore,
          readStore: ReadStore,
          projectors: Projector[],
          config: PlatformConfig,
        ) =>
          new ProjectionRunner(eventStore, readStore, projectors, {
            owner: processLeaseOwner(config.workerId),
            logger: {
              info: (message, context) => logger.info(context ?? {}, message),
              error: (message, context) => logger.error(context ?? {}, message),
            },
          }),
        inject: [EVENT_STORE, READ_STORE, PROJECTORS, PLATFORM_CONFIG],
      },
      {
        provide: ProjectionWaiter,
        useFactory: (readStore: ReadStore, runner: ProjectionRunner) =>
          new ProjectionWaiter(readStore, runner),
        inject: [READ_STORE, ProjectionRunner],
      },
      CommandRunner,
      ReadYourWrites,
      { provide: BLOB_STORE, useFactory: openBlobStore, inject: [PLATFORM_CONFIG] },
      { provide: SEARCH_INDEX, useFactory: openSearchIndex, inject: [PLATFORM_CONFIG] },
      { provide: MESSAGE_BUS, useFactory: openMessageBus, inject: [PLATFORM_CONFIG, LOGGER] },
      {
        provide: ModelRegistry,
        useFactory: (config: PlatformConfig) => ModelRegistry.fromConfig(config),
        inject: [PLATFORM_CONFIG],
      },
    ];
    return {
      module: PlatformModule,
      imports: [CqrsModule.forRoot()],
      providers,
      exports: [
        PLATFORM_CONFIG,
        LOGGER,
        UPCASTERS,
        EVENT_STORE,
        READ_STORE,
        PROJECTORS,
        ProjectionRunner,
        ProjectionWaiter,
        CommandRunner,
        ReadYourWrites,
        CqrsModule,
        ModelRegistry,
        BLOB_STORE,
        SEARCH_INDEX,
        MESSAGE_BUS,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
    // Consumers write through the stores: they stop before the stores close.
    await this.messageBus.close();
    await this.eventStore.close();
    await this.readStore.close();
    await this.blobStore.close();
    await this.searchIndex.close();
  }
}
