// `agent show ID [--as-of T]` and `agent diff ID --from T1 --to T2`: an Agent folded from its stream at a time, and
// the fields that changed between two times. Thin nest-commander adapters over AuditReport.
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AuditReport, parseIsoTime } from '../audit-report.js';
import { CliError } from '../output.js';
import { TimeTravelReport } from '../time-travel-report.js';
import { groupCommand } from './options.js';

@SubCommand({
  name: 'show',
  arguments: '<agentId>',
  description: 'print the Agent as JSON, as it is now or as it was at --as-of (folded from its stream)',
})
export class AgentShowCommand extends CommandRunner {
  constructor(private readonly report: AuditReport) {
    super();
  }

  async run([agentId]: string[], flags: { readonly asOf?: string } = {}): Promise<void> {
    await this.report.agentShow(agentId ?? '', flags.asOf);
  }

  @Option({ flags: '--as-of <time>', description: 'ISO 8601: the Agent as it was then' })
  parseAsOf(value: string): string {
    return parseIsoTime(value, '--as-of');
  }
}

@SubCommand({
  name: 'diff',
  arguments: '<agentId>',
  description: "print the Agent's fields that changed between --from and --to: field: before → after",
})
export class AgentDiffCommand extends CommandRunner {
  constructor(private readonly report: AuditReport) {
    super();
  }

  async run(
    [agentId]: string[],
    flags: { readonly from?: string; readonly to?: string } = {},
  ): Promise<void> {
    if (!flags.from || !flags.to) throw new CliError('agent diff needs --from and --to');
    await this.report.agentDiff(agentId ?? '', flags.from, flags.to);
  }

  @Option({ flags: '--from <time>', description: 'ISO 8601' })
  parseFrom(value: string): string {
    return parseIsoTime(value, '--from');
  }

  @Option({ flags: '--to <time>', description: 'ISO 8601' })
  parseTo(value: string): string {
    return parseIsoTime(value, '--to');
  }
}

type Times = { readonly asOf?: string; readonly from?: string; readonly to?: string };

/** The time options of `agent knowledge` and `agent skills`: one time, or two to diff. */
abstract class AgentSetCommand extends CommandRunner {
  @Option({ flags: '--as-of <time>', description: 'ISO 8601: the set as it was then' })
  parseAsOf(value: string): string {
    return parseIsoTime(value, '--as-of');
  }

  @Option({ flags: '--from <time>', description: 'ISO 8601: diff from this time (with --to)' })
  parseFrom(value: string): string {
    return parseIsoTime(value, '--from');
  }

  @Option({ flags: '--to <time>', description: 'ISO 8601' })
  parseTo(value: string): string {
    return parseIsoTime(value, '--to');
  }
}

@SubCommand({
  name: 'knowledge',
  arguments: '<agentId>',
  description:
    'the documents the Agent reached (id name (status)) at --as-of, or what changed between --from and --to (+ - ~)',
})
export class AgentKnowledgeCommand extends AgentSetCommand {
  constructor(private readonly report: TimeTravelReport) {
    super();
  }

  async run([agentId]: string[], flags: Times = {}): Promise<void> {
    await this.report.knowledge(agentId ?? '', flags);
  }
}

@SubCommand({
  name: 'skills',
  arguments: '<agentId>',
  description:
    'the Skills the Agent had (name version N) at --as-of, or what changed between --from and --to (+ - ~)',
})
export class AgentSkillsCommand extends AgentSetCommand {
  constructor(private readonly report: TimeTravelReport) {
    super();
  }

  async run([agentId]: string[], flags: Times = {}): Promise<void> {
    await this.report.skills(agentId ?? '', flags);
  }
}

@Command({
  name: 'agent',
  description: 'an Agent, its Knowledge set and its Skills as of a time, and what changed between two times',
  subCommands: [AgentShowCommand, AgentDiffCommand, AgentKnowledgeCommand, AgentSkillsCommand],
})
export class AgentCommand extends CommandRunner {
  async run(params: string[]): Promise<void> {
    groupCommand('agent', params, this.command);
  }
}
