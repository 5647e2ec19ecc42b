// `replay --model KEY [--agent ID] [--from T] [--to T] [--messages ID,…] [-n N] [--re-retrieve …] --out PREFIX`:
// recorded turns re-run against another model or retrieval configuration; a thin adapter over ReplayReportWriter.
import { Command, CommandRunner, Option } from 'nest-commander';
import { parseIsoTime } from '../audit-report.js';
import { CliError } from '../output.js';
import { ReplayReportWriter } from '../replay-report.js';
import { nonNegativeInteger } from './options.js';

interface ReplayFlags {
  readonly model?: string;
  readonly agent?: string;
  readonly from?: string;
  readonly to?: string;
  readonly messages?: string[];
  readonly limit?: number;
  readonly reRetrieve?: boolean;
  readonly retrievalMode?: 'hybrid' | 'bm25' | 'vector';
  readonly passages?: number;
  readonly rerank?: boolean;
  readonly out?: string;
}

const MODES = ['hybrid', 'bm25', 'vector'] as const;

@Command({
  name: 'replay',
  description:
    'replay recorded turns against another model (or retrieval configuration) and write a report (PREFIX.json, ' +
    'PREFIX.md); appends nothing to conversations, usage recorded under the replay operation',
})
export class ReplayCommand extends CommandRunner {
  constructor(private readonly writer: ReplayReportWriter) {
    super();
  }

  async run(params: string[], flags: ReplayFlags = {}): Promise<void> {
    if (params.length > 0) throw new CliError(`unexpected argument '${params[0]}' (see 'replay --help')`);
    if (!flags.model) throw new CliError('replay needs --model KEY (the model to replay against)');
    if (!flags.out) throw new CliError('replay needs --out PREFIX (writes PREFIX.json and PREFIX.md)');
    if (!flags.agent && !flags.messages && !flags.from && !flags.to)
      throw new CliError('name the turns: --agent, --from/--to, or --messages');
    await this.writer.run(
      {
        ...(flags.agent ? { agentId: flags.agent } : {}),
        ...(flags.from ? { from: flags.from } : {}),
        ...(flags.to ? { to: flags.to } : {}),
        ...(flags.messages ? { messageIds: flags.messages } : {}),
        ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
      },
      {
        model: flags.model,
        ...(flags.reRetrieve
          ? {
              reRetrieve: {
                mode: flags.retrievalMode ?? 'hybrid',
                limit: flags.passages ?? 8,
                rerank: flags.rerank ?? false,
              },
            }
          : {}),
      },
      flags.out,
    );
  }

  @Option({ flags: '--model <key>', description: 'the chat model to replay against' })
  parseModel(value: string): string {
    return value;
  }

  @Option({ flags: '--agent <agentId>', description: "the Agent's recorded turns" })
  parseAgent(value: string): string {
    return value;
  }

  @Option({ flags: '--from <time>', description: 'ISO 8601: turns answered at or after' })
  parseFrom(value: string): string {
    return parseIsoTime(value, '--from');
  }

  @Option({ flags: '--to <time>', description: 'ISO 8601: turns answered at or before' })
  parseTo(value: string): string {
    return parseIsoTime(value, '--to');
  }

  @Option({ flags: '--messages <ids>', description: 'comma-separated answer message ids' })
  parseMessages(value: string): string[] {
    return value
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
  }

  @Option({ flags: '-n, --limit <n>', description: 'at most this many turns (oldest first)' })
  parseLimit(value: string): number {
    return nonNegativeInteger(value, '--limit');
  }

  @Option({
    flags: '--re-retrieve',
    description: 'search the Knowledge again (else the passages recorded with each answer are sent)',
  })
  parseReRetrieve(): boolean {
    return true;
  }

  @Option({ flags: '--retrieval-mode <mode>', description: 'with --re-retrieve: hybrid | bm25 | vector' })
  parseRetrievalMode(value: string): (typeof MODES)[number] {
    if (!MODES.includes(value as (typeof MODES)[number]))
      throw new CliError(`--retrieval-mode expects one of ${MODES.join(', ')}, got '${value}'`);
    return value as (typeof MODES)[number];
  }

  @Option({ flags: '--passages <n>', description: 'with --re-retrieve: passages per turn (default 8)' })
  parsePassages(value: string): number {
    const n = nonNegativeInteger(value, '--passages');
    if (n < 1 || n > 50) throw new CliError('--passages expects 1 to 50');
    return n;
  }

  @Option({ flags: '--rerank', description: "with --re-retrieve: re-order with the instance's reranker" })
  parseRerank(): boolean {
    return true;
  }

  @Option({ flags: '--out <prefix>', description: 'where the report goes: PREFIX.json and PREFIX.md' })
  parseOut(value: string): string {
    return value;
  }
}
