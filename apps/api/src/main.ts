// Entry point of the api process: read configuration once, start, and shut down cleanly on SIGINT/SIGTERM.
import 'reflect-metadata';
import { loadConfigOrExit } from '#kernel';
import { createLogger } from '#platform';
import { startApi } from './bootstrap.js';

async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const app = await startApi(config, logger);
  logger.info(
    {
      port: config.port,
      host: config.host,
      eventStore: config.eventStore,
      readStore: config.readStore,
      startupMs: Math.round(performance.now() - started),
    },
    `Agent Platform api listening on http://${config.host}:${config.port}`,
  );
  if (!config.adminApiKey) logger.warn('ADMIN_API_KEY is not set: no key can call the API until one is set');
  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void shutdown(signal));
  process.once('SIGTERM', (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
