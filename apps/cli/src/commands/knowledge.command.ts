// `knowledge reindex`: rebuilds the Knowledge search index from the log's current state into a new index version,
// with a progress bar, and switches searches to it when complete (the api keeps serving the live one meanwhile).
import { Inject } from '@nestjs/common';
import cliProgress from 'cli-progress';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { CLI_OUTPUT, type CliOutput } from '../output.js';
import { groupCommand } from './options.js';

@SubCommand({
  name: 'reindex',
  description:
    'rebuild the Knowledge search index from every Ready document into a new index version (e.g. after the ' +
    'embedding model changed), then switch searches to it; the running api keeps searching the old one meanwhile',
})
export class KnowledgeReindexCommand extends CommandRunner {
  constructor(
    private readonly ingestion: IngestionWorker,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {
    super();
  }

  async run(): Promise<void> {
    const progress: { bar: cliProgress.SingleBar | null } = { bar: null };
    let lastNote = 0;
    const result = await this.ingestion.reindex((done, total) => {
      if (this.output.progress) {
        const bar = (progress.bar ??= new cliProgress.SingleBar(
          {
            stream: this.output.progress,
            format: 'reindex [{bar}] {percentage}% | {value}/{total} documents',
          },
          cliProgress.Presets.shades_classic,
        ));
        if (done === 1) bar.start(total, done);
        else bar.update(done);
      } else if (Date.now() - lastNote >= 1000 || done === total) {
        lastNote = Date.now();
        this.output.note(`reindex: ${done}/${total} documents`);
      }
    });
    progress.bar?.stop();
    this.output.line(
      `switched searches from ${result.from ?? '(none)'} to ${result.to}: ` +
        `${result.documents} documents, ${result.chunks} chunks`,
    );
  }
}

@Command({
  name: 'knowledge',
  description: 'operate the Knowledge search index',
  subCommands: [KnowledgeReindexCommand],
})
export class KnowledgeCommand extends CommandRunner {
  async run(params: string[]): Promise<void> {
    groupCommand('knowledge', params, this.command);
  }
}
