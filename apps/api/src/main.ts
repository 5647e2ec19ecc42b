// Entry point of the api process: read configuration once, start, and shut down cleanly on SIGINT/SIGTERM.
// Only young-generation.js is imported statically: V8 parses every module of a static import graph before running
// any of them, and that parsing is where the young generation would grow, so the api itself is imported once the
// growth is held off (see young-generation.ts). The api is imported from its bundle (dist/apps/api/bundle/, built by
// apps/api/bundle.js) when there is one: its own ≈850 modules as a few, beside ≈1,200 of packages. Node's compile
// cache is switched on before that import (compiling is a tenth of a cold start); the cache (NODE_COMPILE_CACHE,
// else `<tmpdir>/node-compile-cache`, keyed by each file's content) lets every start after the first skip it.
import { statSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import {
  BurstCollector,
  collectStartupGarbage,
  holdYoungGeneration,
  releaseYoungGeneration,
} from './young-generation.js';

/** The api bundled into a few modules by `npm run build` (apps/api/bundle.js). */
const BUNDLE = new URL('../bundle/api.js', import.meta.url);
/** Written by every compile that changed something (tsconfig.build.json). */
const BUILD_INFO = new URL('../../../.tsbuildinfo', import.meta.url);

/**
 * The bundle when it was built after the last compile; else the compiled modules themselves (a compile without the
 * bundling step, `tsc -p tsconfig.build.json` alone, leaves a bundle of the previous code: it is not used).
 */
function apiModule(): string {
  const bundled = statSync(BUNDLE, { throwIfNoEntry: false });
  const compiled = statSync(BUILD_INFO, { throwIfNoEntry: false });
  return bundled && (!compiled || bundled.mtimeMs >= compiled.mtimeMs) ? BUNDLE.href : './api.js';
}

async function main(): Promise<void> {
  const started = performance.now();
  enableCompileCache();
  holdYoungGeneration();
  await import('reflect-metadata');
  const { loadConfigOrExit, restrictProcessUmask, createLogger, startApi, startTracing, PLATFORM_VERSION } =
    (await import(apiModule())) as typeof import('./api.js');
  restrictProcessUmask();
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  // Before the api is built: its HTTP hooks trace only when tracing has started. Without an endpoint, nothing loads.
  const tracing = await startTracing(config, PLATFORM_VERSION);
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
    // The spans still batched are exported before the process ends.
    await tracing?.shutdown().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void shutdown(signal));
  process.once('SIGTERM', (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  process.stderr.write(`api failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
