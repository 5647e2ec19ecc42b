// `audit` and `agent show|diff`: the audit trail and time travel from a terminal, over the same AuditTrail and folds
// the api answers with. An operator at the CLI holds the stores, so no access policy narrows what it reads.
import { readFile, writeFile } from 'node:fs/promises';
import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, type EventStore } from '#event-store';
import { AuditTrail, chainLines, verifyChain, type AuditEntry, type AuditFilters } from '#audit';
import { agentAsOf, toAgentDto } from '#agents';
import { CLI_OUTPUT, CliError, type CliOutput } from './output.js';
import { table } from './format.js';

export type AuditFormat = 'json' | 'table' | 'csv';

export const CSV_COLUMNS = [
  'position',
  'occurredAt',
  'actorKind',
  'actorId',
  'userId',
  'credentialKind',
  'action',
  'eventType',
  'resourceType',
  'resourceId',
  'changes',
  'correlationId',
  'causationId',
] as const;

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** "field: before → after; …" */
export const changesInWords = (entry: AuditEntry): string =>
  entry.changes.map((change) => `${change.field}: ${show(change.before)} → ${show(change.after)}`).join('; ');

/** One row of an entry, in CSV_COLUMNS order. */
export function auditRow(entry: AuditEntry): string[] {
  return [
    String(entry.position),
    entry.occurredAt,
    entry.actor.kind,
    entry.actor.id,
    entry.actor.userId ?? '',
    entry.credentialKind,
    entry.action,
    entry.eventType,
    entry.resource.type,
    entry.resource.id,
    changesInWords(entry),
    entry.correlationId,
    entry.causationId ?? '',
  ];
}

/** A CSV cell, quoted when it holds a comma, a quote or a line break. */
export const csvCell = (value: string): string =>
  /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;

export function parseIsoTime(value: string, flag: string): string {
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(Date.parse(value)))
    throw new CliError(`${flag} expects an ISO 8601 time (2026-01-31T12:00:00Z), got '${value}'`);
  return value;
}

@Injectable()
export class AuditReport {
  constructor(
    private readonly trail: AuditTrail,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {}

  /** Every entry the filters select, redacted, in the order asked (oldest first by default at the terminal). */
  async entries(filters: AuditFilters): Promise<AuditEntry[]> {
    const { entries } = await this.trail.select(filters);
    const ordered = filters.order === 'newest' ? entries.reverse() : entries;
    return this.trail.redact(filters.limit === undefined ? ordered : ordered.slice(0, filters.limit));
  }

  async list(filters: AuditFilters, format: AuditFormat = 'table'): Promise<void> {
    const entries = await this.entries(filters);
    if (format === 'json') for (const entry of entries) this.output.line(JSON.stringify(entry));
    else if (format === 'csv') {
      this.output.line(CSV_COLUMNS.join(','));
      for (const entry of entries) this.output.line(auditRow(entry).map(csvCell).join(','));
    } else {
      const header = ['position', 'occurredAt', 'actor', 'action', 'resource', 'changes', 'correlation'];
      const rows = entries.map((entry) => [
        String(entry.position),
        entry.occurredAt,
        `${entry.actor.kind}:${entry.actor.id}${entry.actor.userId && entry.actor.userId !== entry.actor.id ? ` (${entry.actor.userId})` : ''}`,
        entry.action,
        `${entry.resource.type}:${entry.resource.id}`,
        changesInWords(entry),
        entry.correlationId,
      ]);
      for (const line of table(header, rows)) this.output.line(line);
    }
  }

  /** Writes the entries as a hash chain (JSON lines, then a trailer with the range and the head hash). */
  async export(filters: AuditFilters, out: string): Promise<void> {
    const entries = await this.entries({ ...filters, order: 'oldest' });
    const lines = chainLines(entries);
    await writeFile(out, `${lines.join('\n')}\n`);
    const trailer = JSON.parse(lines.at(-1)!) as { trailer: { headHash: string } };
    this.output.line(`exported ${entries.length} entries to ${out}; head hash ${trailer.trailer.headHash}`);
  }

  /** Checks an export's chain; a broken one is a CliError (exit code 1) naming the first bad line. */
  async verify(file: string): Promise<void> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const verdict = verifyChain(text);
    if (!verdict.ok)
      throw new CliError(`${file}: the chain is broken at line ${verdict.line}: ${verdict.reason}`);
    this.output.line(`${file}: ${verdict.count} entries, chain intact, head hash ${verdict.headHash}`);
  }

  private async agentAt(agentId: string, at: string): Promise<Record<string, unknown>> {
    const agent = await agentAsOf(this.eventStore, agentId, new Date(at));
    if (!agent) throw new CliError(`Agent '${agentId}' did not exist at ${at}`);
    const { createdAt: _c, updatedAt: _u, ...fields } = toAgentDto(agent);
    return fields;
  }

  /** The Agent as of a time (now when none is given), as JSON. */
  async agentShow(agentId: string, asOf?: string): Promise<void> {
    const agent = await agentAsOf(this.eventStore, agentId, asOf ? new Date(asOf) : new Date());
    if (!agent) throw new CliError(`Agent '${agentId}' did not exist at ${asOf ?? 'this time'}`);
    this.output.line(JSON.stringify(toAgentDto(agent), null, 2));
  }

  /** The Agent's fields that differ between two times: `field: before → after`, one a line. */
  async agentDiff(agentId: string, from: string, to: string): Promise<void> {
    const before = await this.agentAt(agentId, from);
    const after = await this.agentAt(agentId, to);
    let changed = 0;
    for (const field of Object.keys({ ...before, ...after })) {
      if (JSON.stringify(before[field]) === JSON.stringify(after[field])) continue;
      changed += 1;
      this.output.line(`${field}: ${show(before[field])} → ${show(after[field])}`);
    }
    if (changed === 0) this.output.line(`no change between ${from} and ${to}`);
  }
}
