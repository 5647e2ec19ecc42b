// Erases the stored responses whose RESPONSES_RETENTION_DAYS have passed: their list (the stored-responses read model)
// is scanned each minute, and after a batch it applies once the earliest listed may have expired, by the one process
// serving that projection, and each expired response is deleted as `expired` (its data key destroyed). Reading one
// after it expired already finds nothing.
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '#kernel';
import { ProjectionRunner, ToDoListScanner } from '#eventsourcing';
import { READ_STORE, type ReadStore } from '#read-store';
import { StoredResponses } from './stored-response.repository.js';
import {
  STORED_RESPONSES,
  STORED_RESPONSES_READ_MODEL,
  type StoredResponseView,
} from './stored-responses.read-model.js';

const SCAN_INTERVAL_MS = 60_000;
const BATCH = 200;

@Injectable()
export class StoredResponseSweeper implements BeforeApplicationShutdown {
  private readonly scanner: ToDoListScanner;
  /** When the earliest listed response expires, as the last sweep found it (null: none listed, or no sweep yet). */
  private nextExpiry: number | null = null;
  private sweptAt = 0;

  constructor(
    private readonly responses: StoredResponses,
    runner: ProjectionRunner,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.scanner = new ToDoListScanner(
      runner,
      STORED_RESPONSES_READ_MODEL.projection,
      () => this.sweepWhenDue(),
      (error) => this.logger.error({ err: error }, 'stored responses sweep failed'),
      SCAN_INTERVAL_MS,
    );
  }

  start(): void {
    this.scanner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.scanner.stop();
  }

  /**
   * Sweeps unless nothing listed can have expired: a batch of new responses (a scan each) expires after those
   * already listed, this process storing them all with one retention. A scan interval after the last sweep it sweeps
   * anyway (another process, with another retention, may have stored some).
   */
  private async sweepWhenDue(): Promise<void> {
    const now = Date.now();
    if (this.nextExpiry !== null && now < this.nextExpiry && now - this.sweptAt < SCAN_INTERVAL_MS) return;
    await this.sweep(new Date(now));
  }

  /** Erases the responses expired by `now`, a batch at a time. */
  async sweep(now = new Date()): Promise<number> {
    let erased = 0;
    const reader = this.readStore.reader<StoredResponseView>(STORED_RESPONSES);
    for (;;) {
      const page = await reader
        // Ordered by expiry, so the expiry index finds the few expired ones instead of the scan of all in id order.
        .find({ expiresAt: { $lte: now.toISOString() } }, { limit: BATCH, sort: { field: 'expiresAt' } });
      let progressed = false;
      for (const { id } of page.data)
        if (await this.responses.expire(id)) {
          erased++;
          progressed = true;
        }
      // The read model lags the log: what was just erased may still be listed; the next scan finds it gone.
      if (page.data.length < BATCH || !progressed) break;
    }
    const [earliest] = (await reader.find({}, { limit: 1, sort: { field: 'expiresAt' } })).data;
    this.nextExpiry = earliest ? Date.parse(earliest.expiresAt) : null;
    this.sweptAt = Date.now();
    return erased;
  }
}
