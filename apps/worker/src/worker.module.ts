// The worker application: only the platform (stores, projectors, projection runner), no HTTP api and no bounded
// context modules; the process managers among the projectors send their commands through the platform's runner.
import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import type { PlatformConfig } from '../../../libs/kernel/src/index.js';
import { PlatformModule } from '../../../libs/platform/src/platform.module.js';
import { ALL_PROJECTORS } from '../../../projections/index.js';

@Module({})
export class WorkerModule {
  static forRoot(config: PlatformConfig, logger: Logger): DynamicModule {
    return {
      module: WorkerModule,
      imports: [PlatformModule.forRoot({ config, projectors: ALL_PROJECTORS, logger })],
    };
  }
}
