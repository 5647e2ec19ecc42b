// `events tail` and `events stream`: thin nest-commander adapters over EventLog.
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { DEFAULT_TAIL, EventLog } from '../event-log.js';
import { groupCommand, nonNegativeInteger, untilInterrupted } from './options.js';

interface TailFlags {
  readonly from?: number;
  readonly limit?: number;
  readonly follow?: boolean;
}

@SubCommand({
  name: 'tail',
  description:
    'print the global log, one line per event: position, occurredAt, stream, type, actor kind:id, correlation',
})
export class EventsTailCommand extends CommandRunner {
  constructor(private readonly log: EventLog) {
    super();
  }

  async run(_params: string[], flags: TailFlags = {}): Promise<void> {
    await untilInterrupted((signal) => this.log.tail({ ...flags, signal }));
  }

  @Option({
    flags: '--from <position>',
    description: 'print the events after this log position (exclusive, like a checkpoint; 0 = the beginning)',
  })
  parseFrom(value: string): number {
    return nonNegativeInteger(value, '--from');
  }

  @Option({
    flags: '-n, --limit <n>',
    description: `at most n events before following (default: the last ${DEFAULT_TAIL}; with --from: all)`,
  })
  parseLimit(value: string): number {
    return nonNegativeInteger(value, '--limit');
  }

  @Option({
    flags: '-f, --follow',
    description: 'keep printing new events as they are appended, until Ctrl-C',
  })
  parseFollow(): boolean {
    return true;
  }
}

@SubCommand({
  name: 'stream',
  arguments: '<id>',
  argsDescription: {
    id: 'a stream id (agent-agt_…, space-spc_…) or an entity id (agt_…, spc_…, usr_…, key_…)',
  },
  description:
    "print an entity's history: revision, occurredAt, type, actor, causation/correlation and the data as JSON",
})
export class EventsStreamCommand extends CommandRunner {
  constructor(private readonly log: EventLog) {
    super();
  }

  async run([id]: string[], flags: { readonly json?: boolean } = {}): Promise<void> {
    await this.log.history(id ?? '', flags);
  }

  @Option({ flags: '--json', description: 'print the raw envelopes as JSON lines, for tooling' })
  parseJson(): boolean {
    return true;
  }
}

@Command({
  name: 'events',
  description: 'read the event log, the source of truth',
  subCommands: [EventsTailCommand, EventsStreamCommand],
})
export class EventsCommand extends CommandRunner {
  async run(params: string[]): Promise<void> {
    groupCommand('events', params, this.command);
  }
}
