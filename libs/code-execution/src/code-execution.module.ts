// The code-execution context: a sandbox per conversation (the embedded bubblewrap adapter under DATA_DIR/sandboxes,
// limits from the configuration), the run_code tool through a context provider, the sandbox's state as events and
// a read model, its route, the sweeper of idle and old sandboxes, and the process manager that destroys a deleted
// conversation's sandbox and rebuilds sandboxes when Skills change.
import { join } from 'node:path';
import { Module, type OnModuleInit } from '@nestjs/common';
import { ContextProviders, ConversationsModule } from '#conversations';
import { PLATFORM_CONFIG, type PlatformConfig } from '#kernel';
import { BubblewrapSandbox, CODE_SANDBOX } from '#sandbox';
import { SkillsModule } from '#skills';
import { CodeExecutionContextProvider } from './code-execution.provider.js';
import { CodeRuns } from './code-runs.js';
import { GetSandboxController } from './queries/get-sandbox/get-sandbox.controller.js';
import { GetSandboxHandler } from './queries/get-sandbox/get-sandbox.query.js';
import { MaintainSandboxHandler } from './sandbox-lifecycle.process.js';
import { SandboxSweeper } from './sandbox-sweeper.js';

@Module({
  imports: [ConversationsModule, SkillsModule],
  controllers: [GetSandboxController],
  providers: [
    {
      provide: CODE_SANDBOX,
      useFactory: (config: PlatformConfig) =>
        new BubblewrapSandbox({ root: join(config.dataDir, 'sandboxes'), limits: config.sandbox }),
      inject: [PLATFORM_CONFIG],
    },
    CodeRuns,
    CodeExecutionContextProvider,
    GetSandboxHandler,
    MaintainSandboxHandler,
    SandboxSweeper,
  ],
})
export class CodeExecutionModule implements OnModuleInit {
  constructor(
    private readonly contextProviders: ContextProviders,
    private readonly code: CodeExecutionContextProvider,
  ) {}

  onModuleInit(): void {
    this.contextProviders.add(this.code);
  }
}
