// Entry point of the worker: the scaled-out projector process. It runs every projector under leases (so several
// workers and the api can run side by side: each projector is held by one process at a time) and serves operators
// GET /health and GET /metrics on WORKER_PORT. SIGINT/SIGTERM stop the runner (releasing its leases) and exit.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfigOrExit, restrictProcessUmask } from '#kernel';
import { EVENT_STORE, type EventStore } from '#event-store';
import { READ_STORE, type ReadStore } from '#read-store';
import { ProjectionRunner } from '#eventsourcing';
import { createLogger, PinoNestLogger, startTracing } from '#infrastructure';
import { IngestionWorker } from '#knowledge/ingestion.worker';
import { StoredResponseSweeper } from '#model-gateway';
import { SummaryIndexWorker } from '#knowledge/summary/summary-index.worker';
import { WorkerModule } from './worker.module.js';
import { close, createOperationsServer, listen } from './operations-server.js';

async function main(): Promise<void> {
  const started = performance.now();
  restrictProcessUmask();
  const config = loadConfigOrExit();
  const logger = createLogger(config).child({ process: 'worker' });
  // Its projection batches are traced when an OTLP endpoint is configured (nothing of the SDK loads otherwise).
  const tracing = await startTracing(config);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config, logger), {
    logger: new PinoNestLogger(logger),
    bufferLogs: false,
  });
  const runner = app.get(ProjectionRunner);
  const server = createOperationsServer({
    eventStore: app.get<EventStore>(EVENT_STORE),
    readStore: app.get<ReadStore>(READ_STORE),
    runner,
    logger,
    status: () => ({ ingestion: app.get(IngestionWorker).stats() }),
  });
  const port = await listen(server, config.workerPort, config.host);
  runner.start();
  // Knowledge ingestion runs where its process manager is held.
  app.get(IngestionWorker).start();
  app.get(SummaryIndexWorker).start();
  app.get(StoredResponseSweeper).start();
  logger.info(
    {
      port,
      host: config.host,
      owner: runner.options.owner,
      projectors: runner.projectorNames(),
      eventStore: config.eventStore,
      readStore: config.readStore,
      startupMs: Math.round(performance.now() - started),
    },
    `Agent Platform worker running projectors; health on http://${config.host}:${port}/health`,
  );
  void runner.caughtUp(30_000).then((caughtUp) => {
    const states = Object.fromEntries(runner.status().map((status) => [status.name, status.state]));
    logger.info({ caughtUp, states }, 'projectors: held ones caught up, the others on standby');
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: releasing projector leases');
    try {
      await close(server);
      await runner.stop();
      await app.close();
      await tracing?.shutdown().catch(() => undefined);
      process.exit(0);
    } catch (error) {
      logger.error({ error: error instanceof Error ? error.message : String(error) }, 'unclean shutdown');
      process.exit(1);
    }
  };
  process.once('SIGINT', (signal) => void shutdown(signal));
  process.once('SIGTERM', (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(`worker failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
