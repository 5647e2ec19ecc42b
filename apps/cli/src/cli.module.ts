// The CLI application: the platform's stores and projectors (same configuration as the api, so the same DATA_DIR or
// servers), the command implementations, and the nest-commander commands over them. No projection runs unless a
// command starts one (`projections rebuild` when nobody holds the projector).
import { Injectable, Module, Optional, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { InjectCommander } from 'nest-commander';
import type { PlatformConfig } from '#kernel';
import { InfrastructureModule, createLogger } from '#infrastructure';
import { ALL_PROJECTORS, PROCESS_MODULES } from '../../projectors.js';
import { EventLog } from './event-log.js';
import { ProjectionAdmin } from './projection-admin.js';
import { CLI_OUTPUT, type CliOutput } from './output.js';
import { EventsCommand, EventsStreamCommand, EventsTailCommand } from './commands/events.command.js';
import {
  ProjectionsCommand,
  ProjectionsRebuildCommand,
  ProjectionsStatusCommand,
} from './commands/projections.command.js';
import { KnowledgeCommand, KnowledgeReindexCommand } from './commands/knowledge.command.js';
import { BlobsCommand, BlobsGcCommand } from './commands/blobs.command.js';
import { AuditCommand, AuditExportCommand, AuditVerifyCommand } from './commands/audit.command.js';
import {
  AgentCommand,
  AgentDiffCommand,
  AgentKnowledgeCommand,
  AgentShowCommand,
  AgentSkillsCommand,
} from './commands/agent.command.js';
import { SkillCommand, SkillDiffCommand, SkillShowCommand } from './commands/skill.command.js';
import { TimeTravelReport } from './time-travel-report.js';
import { ReplayCommand } from './commands/replay.command.js';
import { McpCommand, McpConnectCommand } from './commands/mcp.command.js';
import { ReplayReportWriter } from './replay-report.js';
import { AuditReport } from './audit-report.js';
import { AuditTrail, ReplayModule } from '#audit';
// Registers the contexts' offline chat responders in this process (and, by its URL, in the offline worker threads).
import '../../offline/offline-responders.js';

export const CLI_NAME = 'agent-platform';

export const CLI_HELP = `
Runs against the stores the environment configures, as the api does (DATA_DIR, EVENT_STORE/KURRENTDB_URL,
READ_STORE/MONGODB_URI): with embedded SQLite it works on the api's files while the api runs.

Build first, then pass the command after --:
  npm run build
  npm run cli -- events tail --follow
  npm run cli -- events stream spc_0123…
  npm run cli -- projections status
  npm run cli -- projections rebuild spaces
  npm run cli -- knowledge reindex
  npm run cli -- blobs gc --dry-run
  npm run cli -- audit --resource spc_0123… --format csv
  npm run cli -- audit export --out audit.jsonl && npm run cli -- audit verify audit.jsonl
  npm run cli -- agent diff agt_0123… --from 2026-01-01T00:00:00Z --to 2026-02-01T00:00:00Z
  npm run cli -- mcp connect http://127.0.0.1:3001/mcp --call echo --args '{"message":"hi"}'`;

/** The part of commander's root command this module configures. */
interface RootProgram {
  name(name: string): unknown;
  description(text: string): unknown;
  addHelpText(position: 'after', text: string): unknown;
}

/** Names the root command and adds the usage notes to its help; absent when the module runs without the CLI. */
@Injectable()
class CliProgram implements OnModuleInit {
  constructor(@Optional() @InjectCommander() private readonly program?: RootProgram) {}

  onModuleInit(): void {
    if (!this.program) return;
    this.program.name(CLI_NAME);
    this.program.description(
      "Agent Platform operators' and auditors' tool: the event log and the projections",
    );
    this.program.addHelpText('after', CLI_HELP);
  }
}

export interface CliModuleOptions {
  readonly config: PlatformConfig;
  readonly output: CliOutput;
  /** Platform logs (stores, runners); default: errors only, on stderr, so stdout carries results alone. */
  readonly logger?: Logger;
}

export const CLI_COMMANDS = [
  EventsCommand,
  EventsTailCommand,
  EventsStreamCommand,
  ProjectionsCommand,
  ProjectionsStatusCommand,
  ProjectionsRebuildCommand,
  KnowledgeCommand,
  KnowledgeReindexCommand,
  BlobsCommand,
  BlobsGcCommand,
  AuditCommand,
  AuditExportCommand,
  AuditVerifyCommand,
  AgentCommand,
  AgentShowCommand,
  AgentDiffCommand,
  AgentKnowledgeCommand,
  AgentSkillsCommand,
  SkillCommand,
  SkillShowCommand,
  SkillDiffCommand,
  ReplayCommand,
  McpCommand,
  McpConnectCommand,
];

@Module({})
export class CliModule {
  static forRoot(options: CliModuleOptions): DynamicModule {
    const { config } = options;
    const level = config.logLevel === 'silent' || config.logLevel === 'fatal' ? config.logLevel : 'error';
    const logger = options.logger ?? createLogger({ logLevel: level }, process.stderr);
    return {
      module: CliModule,
      imports: [
        InfrastructureModule.forRoot({ config, projectors: ALL_PROJECTORS, logger }),
        ...PROCESS_MODULES,
        ReplayModule,
      ],
      providers: [
        { provide: CLI_OUTPUT, useValue: options.output },
        EventLog,
        ProjectionAdmin,
        AuditTrail,
        AuditReport,
        TimeTravelReport,
        ReplayReportWriter,
        CliProgram,
        ...CLI_COMMANDS,
      ],
    };
  }
}
