// Option parsing shared by the commands, and the parent commands' answer when no (or an unknown) subcommand is given.
import { CliError } from '../output.js';

export function nonNegativeInteger(value: string, flag: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed))
    throw new CliError(`${flag} expects a whole number >= 0, got '${value}'`);
  return parsed;
}

export function positiveNumber(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new CliError(`${flag} expects a number > 0, got '${value}'`);
  return parsed;
}

/** What a group command (`events`, `projections`) does on its own: help, or an error for an unknown subcommand. */
export function groupCommand(
  group: string,
  params: readonly string[],
  command: { outputHelp(): void },
): void {
  if (params.length > 0)
    throw new CliError(`unknown command '${group} ${params[0]}' (see '${group} --help')`);
  command.outputHelp();
}

/** An AbortSignal that fires on Ctrl-C or SIGTERM while `work` runs, so long commands end cleanly. */
export async function untilInterrupted<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}
