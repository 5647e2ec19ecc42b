// `blobs gc`: a thin nest-commander adapter over sweepBlobs, which removes the blobs no context's declared references
// (ALL_BLOB_REFERENCES) keep alive any more (what a crash left behind), and prints each removed blob, each kept as
// unaccounted for, and a summary.
import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { BLOB_STORE, DEFAULT_BLOB_GC_MIN_AGE_MS, sweepBlobs, type BlobStore } from '#blob-store';
import { EVENT_STORE, type EventStore } from '#event-store';
import { ALL_BLOB_REFERENCES } from '../../../blob-references.js';
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
    'remove the blobs no context references any more (Knowledge documents and summary trees, Skill versions, ' +
    'sandbox files: the bytes of a writer that crashed before recording them), except those stored within the ' +
    'grace period and those named by events no context accounts for; prints each removed blob and a summary',
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
      references: ALL_BLOB_REFERENCES,
      minAge: minAgeMinutes * MINUTE_MS,
      dryRun,
    });
    for (const blob of result.removed)
      this.output.line(`${dryRun ? 'would remove' : 'removed'}  ${blob.id}  ${blob.sizeBytes} bytes`);
    for (const blob of result.keptUnaccounted)
      this.output.line(`kept (unaccounted for)  ${blob.id}  named by ${blob.eventTypes.join(', ')}`);
    this.output.line(
      `${dryRun ? 'dry run, nothing removed: ' : ''}scanned ${result.scanned} blobs: ` +
        `${result.referenced} referenced, ` +
        `${result.removed.length} ${dryRun ? 'to remove' : 'removed'} ` +
        `(${result.bytesFreed} bytes ${dryRun ? 'to free' : 'freed'}), ` +
        `${result.keptYoung} kept as stored within the last ${minAgeMinutes} minutes` +
        (result.keptUnaccounted.length > 0
          ? `, ${result.keptUnaccounted.length} kept as named by events no context accounts for`
          : ''),
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
