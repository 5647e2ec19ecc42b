// Infrastructure for every context: configuration, the event and read stores chosen by configuration, the key store
// and content cipher, the projection runner and waiter, logging, and the write side (AggregateRepository, ReadYourWritesBus). Global, so feature modules only list their own parts.
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
import { LOGGER, PLATFORM_CONFIG, type PlatformConfig, tightenDataDir } from '#kernel';
import { openRateLimitStore, RATE_LIMIT_STORE, type RateLimitStore } from '#rate-limit-store';
import { EVENT_STORE, type EventStore, openEventStore, UpcasterRegistry } from '#event-store';
import { openReadStore, READ_STORE, type ReadStore } from '#read-store';
import {
  processLeaseOwner,
  ProjectionRunner,
  ProjectionWaiter,
  AggregateRepository,
  ReadYourWritesBus,
  gatedCqrsModule,
  PROJECTORS,
  type Projector,
} from '#eventsourcing';
import { ModelRegistry } from '#model-providers';
import { BLOB_STORE, type BlobStore, openBlobStore } from '#blob-store';
import { ContentCipher, KEY_STORE, type KeyStore, openKeyStore } from '#key-store';
import { openSearchIndex, SEARCH_INDEX, type SearchIndex } from '#search';
import { MESSAGE_BUS, type MessageBus, openMessageBus } from '#message-bus';
import { createLogger } from './logger.js';

export interface PlatformModuleOptions {
  readonly config: PlatformConfig;
  /** Projector objects, or injectable classes (process managers that send commands). */
  readonly projectors: readonly (Projector | Type<Projector>)[];
  readonly logger?: Logger;
}

export const UPCASTERS = Symbol('UPCASTERS');

@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    private readonly runner: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(BLOB_STORE) private readonly blobStore: BlobStore,
    @Inject(KEY_STORE) private readonly keyStore: KeyStore,
    @Inject(RATE_LIMIT_STORE) private readonly rateLimitStore: RateLimitStore,
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
    // Before any store opens its files: what an earlier version (or a copy made by hand) left readable to others.
    const { changed, refused } = tightenDataDir(options.config.dataDir);
    if (changed > 0)
      logger.warn(
        { dataDir: options.config.dataDir, changed },
        'removed group and other access from DATA_DIR',
      );
    if (refused > 0)
      logger.error(
        { dataDir: options.config.dataDir, refused },
        'entries of DATA_DIR readable by others could not be made private (owned by another user)',
      );
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
      AggregateRepository,
      ReadYourWritesBus,
      { provide: BLOB_STORE, useFactory: openBlobStore, inject: [PLATFORM_CONFIG] },
      { provide: KEY_STORE, useFactory: openKeyStore, inject: [PLATFORM_CONFIG] },
      { provide: RATE_LIMIT_STORE, useFactory: openRateLimitStore, inject: [PLATFORM_CONFIG] },
      ContentCipher,
      { provide: SEARCH_INDEX, useFactory: openSearchIndex, inject: [PLATFORM_CONFIG] },
      { provide: MESSAGE_BUS, useFactory: openMessageBus, inject: [PLATFORM_CONFIG, LOGGER] },
      {
        provide: ModelRegistry,
        useFactory: (config: PlatformConfig) => ModelRegistry.fromConfig(config),
        inject: [PLATFORM_CONFIG],
      },
    ];
    return {
      module: InfrastructureModule,
      imports: [gatedCqrsModule()],
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
        AggregateRepository,
        ReadYourWritesBus,
        CqrsModule,
        ModelRegistry,
        BLOB_STORE,
        KEY_STORE,
        RATE_LIMIT_STORE,
        ContentCipher,
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
    await this.keyStore.close();
    await this.rateLimitStore.close();
    await this.searchIndex.close();
  }
}
