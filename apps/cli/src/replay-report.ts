// `replay`: recorded turns re-run against another model or retrieval configuration (TurnReplay, libs/contexts/audit), and the
// report written as JSON and as readable Markdown (per turn the old and new answers side by side, citations kept,
// lost and added, the token and cost difference). Read-only: no conversation gets an event.
import { writeFile } from 'node:fs/promises';
import { Inject, Injectable } from '@nestjs/common';
import {
  TurnReplay,
  type CitedRange,
  type ReplayOptions,
  type ReplayReport,
  type ReplaySelection,
} from '#audit';
import { CLI_OUTPUT, CliError, type CliOutput } from './output.js';

const cite = (range: CitedRange) => `${range.documentName} [${range.start}–${range.end}]`;
const usd = (value: number | null) => (value === null ? 'n/a' : `$${value.toFixed(6)}`);
const quote = (text: string | null) =>
  text === null
    ? '> _(erased)_'
    : text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
const signed = (value: number) => (value > 0 ? `+${value}` : String(value));

/** The report as Markdown: totals, then each turn with both answers and what changed. */
export function replayMarkdown(report: ReplayReport): string {
  const { totals } = report;
  const lines = [
    `# Replay against ${report.model}`,
    '',
    `Generated ${report.generatedAt}; sources ${report.retrieval}. ${totals.replayed} of ${totals.turns} turns ` +
      `replayed; citations kept ${totals.citationsKept}, lost ${totals.citationsLost}, added ${totals.citationsAdded}; ` +
      `tokens ${totals.oldTokens} → ${totals.newTokens}; cost ${usd(totals.oldCostUsd)} → ${usd(totals.newCostUsd)}.`,
  ];
  report.turns.forEach((turn, i) => {
    lines.push('', `## ${i + 1}. ${turn.messageId}`, '');
    lines.push(`Conversation ${turn.conversationId}, Agent ${turn.agentId}, ${turn.at}.`);
    if (turn.question !== null) lines.push('', '**Question**', '', quote(turn.question));
    lines.push('', `**Old answer** (${turn.old.model})`, '', quote(turn.old.content));
    if (!turn.new) {
      lines.push('', `**Not replayed:** ${turn.error}`);
      return;
    }
    lines.push('', `**New answer** (${turn.new.model})`, '', quote(turn.new.content), '');
    lines.push(
      `| | old | new | difference |`,
      `|---|---|---|---|`,
      `| tokens (in + out) | ${turn.old.inputTokens} + ${turn.old.outputTokens} | ${turn.new.inputTokens} + ${turn.new.outputTokens} | ${signed(turn.tokenDifference)} |`,
      `| cost | ${usd(turn.old.costUsd)} | ${usd(turn.new.costUsd)} | ${usd(turn.costDifferenceUsd)} |`,
      '',
      `Citations kept: ${turn.citationsKept.map(cite).join(', ') || 'none'}; lost: ${turn.citationsLost.map(cite).join(', ') || 'none'}; added: ${turn.citationsAdded.map(cite).join(', ') || 'none'}.`,
    );
    if (!turn.promptVerified)
      lines.push('', "_The Agent's prompt as of the turn does not hash to what the answer recorded._");
    if (turn.passagesMissing > 0)
      lines.push('', `_${turn.passagesMissing} recorded passages are no longer stored._`);
    if ((turn.new.toolCalls ?? []).length > 0)
      lines.push(
        '',
        `Tool calls: ${turn.new.toolCalls!.map((call) => `${call.name}(${call.arguments})${call.ok ? '' : ' failed'}`).join(', ')}.`,
      );
    if (turn.contextItemsReplayed.length > 0)
      lines.push('', `Re-sent as recorded: ${turn.contextItemsReplayed.join(', ')}.`);
    if (turn.contextItemsNotReplayed.length > 0)
      lines.push('', `_Not re-sent: ${turn.contextItemsNotReplayed.join(', ')}._`);
  });
  return `${lines.join('\n')}\n`;
}

@Injectable()
export class ReplayReportWriter {
  constructor(
    private readonly replays: TurnReplay,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {}

  /** Replays the selection and writes `<out>.json` and `<out>.md`. */
  async run(selection: ReplaySelection, options: ReplayOptions, out: string): Promise<ReplayReport> {
    let report: ReplayReport;
    try {
      report = await this.replays.replay(selection, options);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    if (report.turns.length === 0) throw new CliError('no recorded turn matches the selection');
    await writeFile(`${out}.json`, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(`${out}.md`, replayMarkdown(report));
    const { totals } = report;
    this.output.line(
      `replayed ${totals.replayed} of ${totals.turns} turns against ${report.model}: citations kept ` +
        `${totals.citationsKept}, lost ${totals.citationsLost}, added ${totals.citationsAdded}; tokens ` +
        `${totals.oldTokens} → ${totals.newTokens}; report ${out}.json, ${out}.md`,
    );
    return report;
  }
}
