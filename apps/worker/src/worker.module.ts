// The worker application: the platform (stores, projectors, projection runner) and Knowledge ingestion, without the
// HTTP api (an application context: no routes); the process managers among the projectors send their commands
// through the platform's runner.
import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import type { PlatformConfig } from '#kernel';
import { InfrastructureModule } from '#infrastructure';
import { ALL_PROJECTORS, PROCESS_MODULES } from '../../projectors.js';
// Registers the contexts' offline chat responders in this process (and, by its URL, in the offline worker threads).
import '../../offline/offline-responders.js';

@Module({})
export class WorkerModule {
  static forRoot(config: PlatformConfig, logger: Logger): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        InfrastructureModule.forRoot({ config, projectors: ALL_PROJECTORS, logger }),
        ...PROCESS_MODULES,
      ],
    };
  }
}
