// `blobs gc`: a thin nest-commander adapter over sweepBlobs, which removes the blobs the log no longer references
// (what a crash left behind), and prints each removed blob and a summary.
import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { BLOB_STORE, type BlobStore } from '#blob-store';
import { EVENT_STORE, type EventStore } from '#event-store';
import { DEFAULT_BLOB_GC_MIN_AGE_MS, sweepBlobs } from '#knowledge/blob-gc';
import { CLI_OUTPUT, type CliOutput } from '../output.js';
import { groupCommand, nonNegativeInteger } from './options.js';

interface GcFlags {
  readonly dryRun?: boolean;
  /** Minutes. */
  readonly minAge?: number;
}

const MINUTE_MS = 60_000;
const DEFAULT_MIN_AGE_MINUTES = DEFAULT_BLOB_GC_MIN_AGE_MS / MINUTE_MS;

@SubCommand({
  name: 'gc',
  description:
    'remove the blobs no event references any more (the bytes of an upload, an ingestion or a summary build ' +
    'that crashed before recording them), except those stored within the grace period; prints each removed ' +
    'blob and a summary',
})
export class BlobsGcCommand extends CommandRunner {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLI_OUTPUT) private readonly output: CliOutput,
  ) {
    super();
  }

  async run(_params: string[], flags: GcFlags = {}): Promise<void> {
    const minAgeMinutes = flags.minAge ?? DEFAULT_MIN_AGE_MINUTES;
    const dryRun = flags.dryRun ?? false;
    if (minAgeMinutes === 0 && !dryRun)
      this.output.note(
        'warning: --min-age 0 also removes the bytes of an upload, ingestion or summary build in flight; ' +
          'use it only while no api or worker runs',
      );
    const result = await sweepBlobs({
      blobs: this.blobs,
      events: this.events,
      minAge: minAgeMinutes * MINUTE_MS,
      dryRun,
    });
    for (const blob of result.removed)
      this.output.line(`${dryRun ? 'would remove' : 'removed'}  ${blob.id}  ${blob.sizeBytes} bytes`);
    this.output.line(
      `${dryRun ? 'dry run, nothing removed: ' : ''}scanned ${result.scanned} blobs: ` +
        `${result.referenced} referenced, ` +
        `${result.removed.length} ${dryRun ? 'to remove' : 'removed'} ` +
        `(${result.bytesFreed} bytes ${dryRun ? 'to free' : 'freed'}), ` +
        `${result.keptYoung} kept as stored within the last ${minAgeMinutes} minutes`,
    );
  }

  @Option({
    flags: '--dry-run',
    description: 'print what would be removed, remove nothing',
  })
  parseDryRun(): boolean {
    return true;
  }

  @Option({
    flags: '--min-age <minutes>',
    description:
      `keep unreferenced blobs stored less than this many minutes ago (default: ${DEFAULT_MIN_AGE_MINUTES}): ` +
      'a writer stores the bytes before it records them; 0 keeps none',
  })
  parseMinAge(value: string): number {
    return nonNegativeInteger(value, '--min-age');
  }
}

@Command({
  name: 'blobs',
  description: 'maintain the blob store (uploaded files, extracted texts, summary trees)',
  subCommands: [BlobsGcCommand],
})
export class BlobsCommand extends CommandRunner {
  async run(params: string[]): Promise<void> {
    groupCommand('blobs', params, this.command);
  }
}
