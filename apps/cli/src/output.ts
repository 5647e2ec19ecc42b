// Where the CLI writes: results on stdout, diagnostics on stderr, progress bars on a terminal. Commands take this as
// a dependency, so tests capture what they print instead of spying on the process streams.

export interface CliOutput {
  /** One line of the result (stdout). */
  line(text: string): void;
  /** One line of diagnostics: warnings, errors, what a long command is waiting for (stderr). */
  note(text: string): void;
  /** Where a progress bar renders, or null to report progress as notes only (not a terminal, tests). */
  readonly progress: NodeJS.WritableStream | null;
}

export const CLI_OUTPUT = Symbol('CLI_OUTPUT');

/** A failure the user can act on: printed as `error: <message>` without a stack, exit code 1. */
export class CliError extends Error {}

const writeLine = (stream: NodeJS.WriteStream, text: string): void => {
  stream.write(`${text}\n`);
};

export function processOutput(): CliOutput {
  // A closed pipe (`… | head`) is not an error of the command.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  return {
    line: (text) => writeLine(process.stdout, text),
    note: (text) => writeLine(process.stderr, text),
    progress: process.stderr.isTTY ? process.stderr : null,
  };
}

export interface CapturedOutput extends CliOutput {
  readonly lines: string[];
  readonly notes: string[];
}

export function capturedOutput(): CapturedOutput {
  const lines: string[] = [];
  const notes: string[] = [];
  return {
    lines,
    notes,
    line: (text) => void lines.push(text),
    note: (text) => void notes.push(text),
    progress: null,
  };
}
