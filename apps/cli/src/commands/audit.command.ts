// `audit` (list with filters and formats), `audit export` (a hash-chained file) and `audit verify`: thin
// nest-commander adapters over AuditReport.
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import type { AuditFilters } from '#audit';
import { AuditReport, parseIsoTime, type AuditFormat } from '../audit-report.js';
import { CliError } from '../output.js';
import { nonNegativeInteger } from './options.js';

/** The flags as commander names them (after the long flag). */
interface AuditFlags {
  readonly resource?: string;
  readonly resourceType?: string;
  readonly actor?: string;
  readonly action?: string;
  readonly correlation?: string;
  readonly from?: string;
  readonly to?: string;
  readonly newest?: boolean;
  readonly limit?: number;
  readonly format?: AuditFormat;
}

const filtersOf = (flags: AuditFlags): AuditFilters => ({
  ...(flags.resource ? { resourceId: flags.resource } : {}),
  ...(flags.resourceType ? { resourceType: flags.resourceType } : {}),
  ...(flags.actor ? { actorId: flags.actor } : {}),
  ...(flags.action ? { action: flags.action } : {}),
  ...(flags.correlation ? { correlationId: flags.correlation } : {}),
  ...(flags.from ? { from: flags.from } : {}),
  ...(flags.to ? { to: flags.to } : {}),
  order: flags.newest ? 'newest' : 'oldest',
  ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
});

const FORMATS: readonly AuditFormat[] = ['json', 'table', 'csv'];

@SubCommand({
  name: 'export',
  description:
    'write the selected entries (oldest first) to a file as JSON lines, each with hash = sha256(prevHash + entry), and a trailer with the range and the head hash',
})
export class AuditExportCommand extends CommandRunner {
  constructor(private readonly report: AuditReport) {
    super();
  }

  async run(_params: string[], flags: AuditFlags & { out?: string } = {}): Promise<void> {
    // commander hands the flags the parent `audit` also declares (--resource, --from, --to) to the parent.
    const merged = { ...(this.command.parent?.opts() ?? {}), ...flags } as AuditFlags & { out?: string };
    if (!merged.out) throw new CliError('audit export needs --out FILE');
    await this.report.export(filtersOf(merged), merged.out);
  }

  @Option({ flags: '--out <file>', description: 'the file to write' })
  parseOut(value: string): string {
    return value;
  }

  @Option({ flags: '--resource <id>', description: 'only this entity and what is inside it' })
  parseResource(value: string): string {
    return value;
  }

  @Option({ flags: '--from <time>', description: 'ISO 8601, inclusive' })
  parseFrom(value: string): string {
    return parseIsoTime(value, '--from');
  }

  @Option({ flags: '--to <time>', description: 'ISO 8601, inclusive' })
  parseTo(value: string): string {
    return parseIsoTime(value, '--to');
  }
}

@SubCommand({
  name: 'verify',
  arguments: '<file>',
  description:
    "check an export's hash chain and trailer (exit code 1 and the first broken line when it fails)",
})
export class AuditVerifyCommand extends CommandRunner {
  constructor(private readonly report: AuditReport) {
    super();
  }

  async run([file]: string[]): Promise<void> {
    await this.report.verify(file ?? '');
  }
}

@Command({
  name: 'audit',
  description: 'who changed what, when and why: the audit trail folded from the log (oldest first)',
  subCommands: [AuditExportCommand, AuditVerifyCommand],
})
export class AuditCommand extends CommandRunner {
  constructor(private readonly report: AuditReport) {
    super();
  }

  async run(params: string[], flags: AuditFlags = {}): Promise<void> {
    if (params.length > 0) throw new CliError(`unknown command 'audit ${params[0]}' (see 'audit --help')`);
    await this.report.list(filtersOf(flags), flags.format);
  }

  @Option({ flags: '--format <format>', description: 'json | table | csv (default: table)' })
  parseFormat(value: string): AuditFormat {
    if (!FORMATS.includes(value as AuditFormat))
      throw new CliError(`--format expects one of ${FORMATS.join(', ')}, got '${value}'`);
    return value as AuditFormat;
  }

  @Option({
    flags: '--resource <id>',
    description: 'only this entity and what is inside it (a Space, an Agent, …)',
  })
  parseResource(value: string): string {
    return value;
  }

  @Option({
    flags: '--resource-type <type>',
    description: 'only entries about this type (agent, space, document, …)',
  })
  parseResourceType(value: string): string {
    return value;
  }

  @Option({ flags: '--actor <id>', description: 'an actor id, or the user behind an API key' })
  parseActor(value: string): string {
    return value;
  }

  @Option({ flags: '--action <words>', description: 'words of the action, or the exact event type' })
  parseAction(value: string): string {
    return value;
  }

  @Option({ flags: '--correlation <id>', description: 'one request and the cascade it caused' })
  parseCorrelation(value: string): string {
    return value;
  }

  @Option({ flags: '--from <time>', description: 'ISO 8601, inclusive' })
  parseFrom(value: string): string {
    return parseIsoTime(value, '--from');
  }

  @Option({ flags: '--to <time>', description: 'ISO 8601, inclusive' })
  parseTo(value: string): string {
    return parseIsoTime(value, '--to');
  }

  @Option({ flags: '--newest', description: 'newest first (default: oldest first)' })
  parseNewest(): boolean {
    return true;
  }

  @Option({ flags: '-n, --limit <n>', description: 'at most n entries' })
  parseLimit(value: string): number {
    return nonNegativeInteger(value, '--limit');
  }
}
