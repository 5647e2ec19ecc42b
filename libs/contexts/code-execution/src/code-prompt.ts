// The text formats of code execution in a prompt, shared by the conversation runtime (which writes the result of
// the `run_code` tool) and code execution's offline responder (`offline/code-responder.ts`, which finds the code to
// run in the user's message and reads the result back to answer without a language model).
//
//   Code run result: python
//   exit: 0                      (or `exit: none` without an exit code, `timed out`, `timed out (exit 137)`)
//   (output truncated)           (only when the sandbox cut the output)
//   stdout:
//   ```
//   <stdout, verbatim>
//   ```
//   stderr:                      (only when stderr is not empty)
//   ```
//   <stderr, verbatim>
//   ```
//   files: out.png, data.csv     (only when the run left files)
//
// A fence is one backtick longer than the longest run of backticks in what it holds (three at least), so output
// holding fences of its own reads back verbatim. File names are written on one line; they hold no `, `.
import { fenced } from '#kernel/thread-kit';

/** The built-in tool that runs code in the conversation's sandbox (arguments `{ language, code }`). */
export const RUN_CODE_TOOL = 'run_code';
export const CODE_RESULT_HEADER = 'Code run result:';
const TRUNCATED_LINE = '(output truncated)';

/** The languages `run_code` runs. */
export type CodeLanguage = 'python' | 'shell';

/** What a `run_code` call ran and left, as its result shows it. */
export interface CodeResult {
  language: CodeLanguage;
  /** The exit code; null when the process left none (killed, timed out). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Whether the output was cut at the sandbox's cap. */
  truncated: boolean;
  timedOut: boolean;
  /** The files the run left in its working directory. */
  files: readonly string[];
}

/** Code to run: a fenced block of the user's message. */
export interface FencedCode {
  language: CodeLanguage;
  code: string;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

const statusLine = (result: Pick<CodeResult, 'exitCode' | 'timedOut'>): string =>
  result.timedOut
    ? result.exitCode === null
      ? 'timed out'
      : `timed out (exit ${result.exitCode})`
    : `exit: ${result.exitCode ?? 'none'}`;

/**
 * The result of `run_code`: the header line `Code run result: <language>`, the status line (`exit: <code>`,
 * `exit: none`, `timed out` or `timed out (exit <code>)`), `(output truncated)` when cut, `stdout:` fenced,
 * `stderr:` fenced when not empty, `files: a, b` when the run left any.
 */
export const formatCodeResult = (result: {
  readonly language: CodeLanguage;
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly files: readonly string[];
}): string =>
  [
    `${CODE_RESULT_HEADER} ${result.language}`,
    statusLine(result),
    ...(result.truncated ? [TRUNCATED_LINE] : []),
    fenced('stdout:', result.stdout),
    ...(result.stderr === '' ? [] : [fenced('stderr:', result.stderr)]),
    ...(result.files.length > 0 ? [`files: ${result.files.map(oneLine).join(', ')}`] : []),
  ].join('\n');

const HEADER_LINE = /^Code run result: (python|shell)$/;
const EXIT_LINE = /^exit: (-?\d+|none)$/;
const TIMED_OUT_LINE = /^timed out(?: \(exit (-?\d+)\))?$/;
const FENCE_LINE = /^`{3,}$/;

/**
 * The result in a text made by {@link formatCodeResult}, or undefined when it is not one. Reads back exactly what
 * was formatted (file names as written on one line).
 */
export const parseCodeResult = (text: string): CodeResult | undefined => {
  const lines = text.replace(/^\s+/, '').split('\n');
  const header = HEADER_LINE.exec(lines[0]?.trimEnd() ?? '');
  if (!header) return undefined;
  let at = 1;
  const status = lines[at++]?.trimEnd() ?? '';
  const exit = EXIT_LINE.exec(status);
  const timeout = TIMED_OUT_LINE.exec(status);
  if (!exit && !timeout) return undefined;
  const exitCode = exit
    ? exit[1] === 'none'
      ? null
      : Number(exit[1])
    : timeout![1]
      ? Number(timeout![1])
      : null;
  const truncated = lines[at]?.trimEnd() === TRUNCATED_LINE;
  if (truncated) at++;
  const block = (label: string): string | undefined => {
    if (lines[at]?.trimEnd() !== label) return undefined;
    const fence = lines[at + 1]?.trimEnd() ?? '';
    if (!FENCE_LINE.test(fence)) return undefined;
    const close = lines.findIndex((line, index) => index > at + 1 && line === fence);
    if (close < 0) return undefined;
    const body = lines.slice(at + 2, close).join('\n');
    at = close + 1;
    return body;
  };
  const stdout = block('stdout:');
  if (stdout === undefined) return undefined;
  const stderr = block('stderr:') ?? '';
  const filesLine = lines[at]?.trimEnd() ?? '';
  const files = filesLine.startsWith('files: ') ? filesLine.slice('files: '.length).split(', ') : [];
  return {
    language: header[1] as CodeLanguage,
    exitCode,
    stdout,
    stderr,
    truncated,
    timedOut: timeout !== null,
    files,
  };
};

const OPENING_FENCE = /^ {0,3}(`{3,})([^`]*)$/;

const languageOf = (info: string): CodeLanguage | undefined => {
  const tag = info.trim().split(/\s+/)[0]!.toLowerCase();
  if (tag === 'python' || tag === 'py') return 'python';
  if (tag === '' || tag === 'sh' || tag === 'bash' || tag === 'shell') return 'shell';
  return undefined;
};

/**
 * The code of the first fenced block (```) of a message: ```python or ```py is Python; ```sh, ```bash, ```shell or
 * no tag is shell; any other tag (the first block's) gives undefined, as does a message without a block or a block
 * holding only whitespace. The block ends at a line of at least as many backticks as opened it (or, unclosed, at
 * the end of the message); an opening fence may be indented up to three spaces, as in Markdown.
 */
export const fencedCode = (message: string): FencedCode | undefined => {
  const lines = message.split(/\r?\n/);
  const start = lines.findIndex((line) => OPENING_FENCE.test(line));
  if (start < 0) return undefined;
  const [, fence, info] = OPENING_FENCE.exec(lines[start]!)!;
  const language = languageOf(info!);
  if (!language) return undefined;
  const closing = new RegExp(`^ {0,3}\`{${fence!.length},}\\s*$`);
  const end = lines.findIndex((line, index) => index > start && closing.test(line));
  const code = lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
  return code.trim() === '' ? undefined : { language, code };
};
