// The api application: the platform's infrastructure, every bounded context, and the operations endpoints.
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { PlatformConfig } from '#kernel';
import { InfrastructureModule } from '#infrastructure';
import { ErrorEnvelopeFilter } from '#http';
import { AccessModule } from '#access';
import { IdentityModule } from '#identity';
import { SpacesModule } from '#spaces';
import { AgentsModule } from '#agents';
import { ModelGatewayModule } from '#model-gateway';
import { KnowledgeModule } from '#knowledge';
import { AgentGenerationModule } from '#agent-generation';
import { ConversationsModule } from '#conversations';
import { MemoryModule } from '#memory';
import { SkillsModule, SkillsSeeder } from '#skills';
import { CodeExecutionModule } from '#code-execution';
import { AuditModule, ReplayModule } from '#audit';
import { AppsModule } from '#apps';
import { GetLogHeadHandler, GetProjectionHealthHandler, RequestProjectionRebuildHandler } from '#operations';
import { McpController } from './mcp/mcp.controller.js';
import { ProjectionRebuildController } from './projection-rebuild.controller.js';
import { ALL_PROJECTORS } from '../../projectors.js';
import { OperationsController } from './operations.controller.js';
import { WebController } from './web/web.controller.js';
import { WebAssets } from './web/web-assets.js';
import { OPENAPI_DOCUMENT, openApiDocument } from './openapi.js';
import { HTTP_METRICS } from './http-metrics.js';
// Registers the contexts' offline chat responders in this process (and, by its URL, in the offline worker threads).
import '../../offline/offline-responders.js';

@Module({})
export class ApiModule {
  static forRoot(config: PlatformConfig, logger: Logger, metrics: Registry): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        DiscoveryModule,
        InfrastructureModule.forRoot({ config, projectors: ALL_PROJECTORS, logger }),
        AccessModule,
        IdentityModule,
        SpacesModule,
        AgentsModule,
        ModelGatewayModule,
        KnowledgeModule,
        AgentGenerationModule,
        ConversationsModule,
        MemoryModule,
        SkillsModule,
        CodeExecutionModule,
        AuditModule,
        ReplayModule,
        AppsModule,
      ],
      controllers: [OperationsController, ProjectionRebuildController, McpController, WebController],
      providers: [
        { provide: OPENAPI_DOCUMENT, useFactory: openApiDocument, inject: [DiscoveryService] },
        { provide: HTTP_METRICS, useValue: metrics },
        { provide: WebAssets, useFactory: () => new WebAssets() },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        GetProjectionHealthHandler,
        GetLogHeadHandler,
        RequestProjectionRebuildHandler,
        // The api seeds the DEFAULT Skills on start (the worker and the CLI do not).
        SkillsSeeder,
      ],
    };
  }
}
