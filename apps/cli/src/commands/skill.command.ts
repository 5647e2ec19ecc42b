// `skill show ID [--as-of T]` and `skill diff ID --from T1 --to T2`: a Skill folded from its stream at a time (its
// versions, the active one), and the fields that changed between two times. Thin adapters over TimeTravelReport.
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { parseIsoTime } from '../audit-report.js';
import { CliError } from '../output.js';
import { TimeTravelReport } from '../time-travel-report.js';
import { groupCommand } from './options.js';

@SubCommand({
  name: 'show',
  arguments: '<skillId>',
  description: 'print the Skill and its versions as JSON, as it is now or as it was at --as-of',
})
export class SkillShowCommand extends CommandRunner {
  constructor(private readonly report: TimeTravelReport) {
    super();
  }

  async run([skillId]: string[], flags: { readonly asOf?: string } = {}): Promise<void> {
    await this.report.skillShow(skillId ?? '', flags.asOf);
  }

  @Option({ flags: '--as-of <time>', description: 'ISO 8601: the Skill as it was then' })
  parseAsOf(value: string): string {
    return parseIsoTime(value, '--as-of');
  }
}

@SubCommand({
  name: 'diff',
  arguments: '<skillId>',
  description: "print the Skill's fields that changed between --from and --to: field: before → after",
})
export class SkillDiffCommand extends CommandRunner {
  constructor(private readonly report: TimeTravelReport) {
    super();
  }

  async run(
    [skillId]: string[],
    flags: { readonly from?: string; readonly to?: string } = {},
  ): Promise<void> {
    if (!flags.from || !flags.to) throw new CliError('skill diff needs --from and --to');
    await this.report.skillDiff(skillId ?? '', flags.from, flags.to);
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

@Command({
  name: 'skill',
  description: 'a Skill as of a time, and what changed between two times',
  subCommands: [SkillShowCommand, SkillDiffCommand],
})
export class SkillCommand extends CommandRunner {
  async run(params: string[]): Promise<void> {
    groupCommand('skill', params, this.command);
  }
}
