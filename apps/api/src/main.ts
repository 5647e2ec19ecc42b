// Entry point of the api process: read configuration once, start, and shut down cleanly on SIGINT/SIGTERM.
// Only young-generation.js is imported statically: V8 parses every module of a static import graph before running
// any of them, and that parsing is where the young generation would grow, so the api itself is imported once the
// growth is held off (see young-generation.ts). Node's compile cache is switched on before that import: the api
// loads ~1,100 modules, and compiling them is a tenth of a cold start; the cache (NODE_COMPILE_CACHE, else
// `<tmpdir>/node-compile-cache`, keyed by each file's content) lets every start after the first skip it.
import { enableCompileCache } from 'node:module';
import {
  BurstCollector,
  collectStartupGarbage,
  holdYoungGeneration,
  releaseYoungGeneration,
} from './young-generation.js';

async function main(): Promise<void> {
  const started = performance.now();
  enableCompileCache();
  holdYoungGeneration();
  await import('reflect-metadata');
  const [{ loadConfigOrExit }, { createLogger }, { startApi }] = await Promise.all([
    import('#kernel'),
    import('#infrastructure'),
    import('./bootstrap.js'),
  ]);
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const app = await startApi(config, logger);
  releaseYoungGeneration();
  collectStartupGarbage();
  BurstCollector.start();
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
