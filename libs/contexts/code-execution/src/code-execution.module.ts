// The code-execution context: a sandbox per conversation (the adapter configured, bubblewrap's under sandboxRoot below,
// limits from the configuration), the run_code tool through a context provider, the sandbox's state as events and
// a read model, its route, the sweeper of idle and old sandboxes, and the process manager that destroys a deleted
// conversation's sandbox and rebuilds sandboxes when Skills change. A run is a service call (CodeRuns: it carries the
// turn's AbortSignal); every write it and the others make is a command whose handler appends through
// SandboxRepository.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type OnModuleInit } from '@nestjs/common';
import { ContextProviders, ConversationDirectory, ConversationsModule } from '#conversations';
import { PLATFORM_CONFIG, sha256, type PlatformConfig } from '#kernel';
import { CODE_SANDBOX, openSandbox } from '#sandbox';
import { SkillsModule } from '#skills';
import { CodeExecutionContextProvider } from './code-execution.provider.js';
import { CodeRuns } from './code-runs.js';
import { DestroySandboxHandler } from './commands/destroy-sandbox/destroy-sandbox.command.js';
import { EraseCodeRunsHandler } from './commands/erase-code-runs/erase-code-runs.command.js';
import { RebuildSandboxSkillsHandler } from './commands/rebuild-sandbox-skills/rebuild-sandbox-skills.command.js';
import { RecordCodeRunHandler } from './commands/record-code-run/record-code-run.command.js';
import { RecordSandboxCreatedHandler } from './commands/record-sandbox-created/record-sandbox-created.command.js';
import { DownloadSandboxFileController } from './queries/download-sandbox-file/download-sandbox-file.controller.js';
import { DownloadSandboxFileHandler } from './queries/download-sandbox-file/download-sandbox-file.query.js';
import { GetSandboxController } from './queries/get-sandbox/get-sandbox.controller.js';
import { GetSandboxHandler } from './queries/get-sandbox/get-sandbox.query.js';
import { SANDBOX_LIFECYCLE_PROCESS } from './sandbox-lifecycle.process.js';
import { SandboxRepository } from './sandbox.repository.js';
import { SandboxSweeper } from './sandbox-sweeper.js';

/**
 * Where an instance's sandboxes live: under the system's temporary directory, one folder per data directory. Each
 * sandbox runs as a uid of its own, which must be able to reach its directory; a data directory is often private to
 * the platform's user (0700), and sandboxes are short-lived by design (destroyed when idle, gone on reboot).
 */
export const sandboxRoot = (dataDir: string): string =>
  join(tmpdir(), 'agent-platform-sandboxes', sha256(dataDir).slice(0, 16));

@Module({
  imports: [ConversationsModule, SkillsModule],
  controllers: [GetSandboxController, DownloadSandboxFileController],
  providers: [
    {
      provide: CODE_SANDBOX,
      useFactory: (config: PlatformConfig) => openSandbox(config, sandboxRoot(config.dataDir)),
      inject: [PLATFORM_CONFIG],
    },
    CodeRuns,
    SandboxRepository,
    CodeExecutionContextProvider,
    GetSandboxHandler,
    DownloadSandboxFileHandler,
    RecordSandboxCreatedHandler,
    RecordCodeRunHandler,
    DestroySandboxHandler,
    EraseCodeRunsHandler,
    RebuildSandboxSkillsHandler,
    SandboxSweeper,
  ],
  exports: [CODE_SANDBOX],
})
export class CodeExecutionModule implements OnModuleInit {
  constructor(
    private readonly contextProviders: ContextProviders,
    private readonly code: CodeExecutionContextProvider,
    private readonly conversations: ConversationDirectory,
  ) {}

  onModuleInit(): void {
    this.contextProviders.add(this.code);
    // Deleting a message or a conversation answers once its code runs are erased (keys destroyed, files deleted).
    this.conversations.followErasure({ projection: SANDBOX_LIFECYCLE_PROCESS });
  }
}
