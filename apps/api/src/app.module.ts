// The api application: the platform's infrastructure, every bounded context, and the operations endpoints.
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { PlatformConfig } from '../../../libs/kernel/src/index.js';
import { PlatformModule } from '../../../libs/platform/src/platform.module.js';
import { ErrorEnvelopeFilter } from '../../../libs/http/src/error-envelope.filter.js';
import { IdentityModule } from '../../../libs/identity/src/identity.module.js';
import { SpacesModule } from '../../../libs/spaces/src/spaces.module.js';
import { AgentsModule } from '../../../libs/agents/src/agents.module.js';
import { GatewayModule } from '../../../libs/gateway/src/gateway.module.js';
import { KnowledgeModule } from '../../../libs/knowledge/src/knowledge.module.js';
import { LlmModule } from '../../../libs/llm/src/llm.module.js';
import { ALL_PROJECTORS } from '../../../projections/index.js';
import { OperationsController } from './operations.controller.js';
import { OPENAPI_DOCUMENT, openApiDocument } from './openapi.js';
import { HTTP_METRICS } from './http-metrics.js';

@Module({})
export class ApiModule {
  static forRoot(config: PlatformConfig, logger: Logger, metrics: Registry): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        PlatformModule.forRoot({ config, projectors: ALL_PROJECTORS, logger }),
        IdentityModule,
        SpacesModule,
        AgentsModule,
        GatewayModule,
        KnowledgeModule,
        LlmModule,
      ],
      controllers: [OperationsController],
      providers: [
        { provide: OPENAPI_DOCUMENT, useFactory: openApiDocument },
        { provide: HTTP_METRICS, useValue: metrics },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
      ],
    };
  }
}
