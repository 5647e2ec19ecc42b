// `projections status` and `projections rebuild`: thin nest-commander adapters over ProjectionAdmin.
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ProjectionAdmin } from '../projection-admin.js';
import { groupCommand, positiveNumber, untilInterrupted } from './options.js';

@SubCommand({
  name: 'status',
  description:
    'every projector from the stores: state, live generation and version, checkpoint, lag (events, age), ' +
    'building generation, lease holder and expiry (read-only: safe while the api and workers run)',
})
export class ProjectionsStatusCommand extends CommandRunner {
  constructor(private readonly admin: ProjectionAdmin) {
    super();
  }

  async run(_params: string[], flags: { readonly json?: boolean } = {}): Promise<void> {
    await this.admin.printStatus(flags);
  }

  @Option({ flags: '--json', description: 'one JSON object per projector, for tooling' })
  parseJson(): boolean {
    return true;
  }
}

@SubCommand({
  name: 'rebuild',
  arguments: '<name>',
  argsDescription: { name: 'a projector name, as listed by `projections status`' },
  description:
    'rebuild a projection into a new generation and switch readers to it (blue/green): asks the process holding ' +
    'its lease, or rebuilds here when nobody holds it',
})
export class ProjectionsRebuildCommand extends CommandRunner {
  constructor(private readonly admin: ProjectionAdmin) {
    super();
  }

  async run([name]: string[], flags: { readonly timeout?: number } = {}): Promise<void> {
    await untilInterrupted((signal) =>
      this.admin.rebuild(name ?? '', {
        signal,
        ...(flags.timeout ? { timeoutMs: flags.timeout * 1000 } : {}),
      }),
    );
  }

  @Option({ flags: '--timeout <seconds>', description: 'give up after this long (default: 600)' })
  parseTimeout(value: string): number {
    return positiveNumber(value, '--timeout');
  }
}

@Command({
  name: 'projections',
  description: 'inspect and rebuild the read models',
  subCommands: [ProjectionsStatusCommand, ProjectionsRebuildCommand],
})
export class ProjectionsCommand extends CommandRunner {
  async run(params: string[]): Promise<void> {
    groupCommand('projections', params, this.command);
  }
}
