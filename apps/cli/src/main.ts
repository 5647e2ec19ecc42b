// Entry point of the operators' CLI: read configuration once, run one command, exit 0 on success and 1 on failure.
// Build first (`npm run build`), then `npm run cli -- <command>`; `npm run cli -- --help` lists the commands.
import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { loadConfigOrExit, restrictProcessUmask } from '#kernel';
import { CLI_NAME, CliModule } from './cli.module.js';
import { CliError, processOutput } from './output.js';

async function main(): Promise<void> {
  restrictProcessUmask();
  const config = loadConfigOrExit();
  const output = processOutput();
  await CommandFactory.run(CliModule.forRoot({ config, output }), {
    cliName: CLI_NAME,
    // Nest's own messages only when something is wrong with the application itself.
    logger: ['error', 'fatal'],
    serviceErrorHandler: (error: Error) => {
      output.note(`error: ${error instanceof CliError ? error.message : (error.stack ?? error.message)}`);
      process.exitCode = 1;
    },
  });
  // Stores are closed by now; leftover timers (a retired generation's grace period) must not hold the exit. Through a
  // pipe stdout is asynchronous: exit only once everything written has drained (`events tail | grep` lost lines).
  await drained(process.stdout);
  process.exit(process.exitCode ?? 0);
}

/** Resolves once everything written to `stream` has been handed to the operating system. */
const drained = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write('', () => resolve());
  });

main().catch(async (error: unknown) => {
  process.stderr.write(`cli failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  await drained(process.stdout);
  process.exit(1);
});
