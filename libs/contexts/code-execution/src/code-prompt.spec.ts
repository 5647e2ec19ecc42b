import {
  CODE_RESULT_HEADER,
  fencedCode,
  formatCodeResult,
  parseCodeResult,
  RUN_CODE_TOOL,
  type CodeResult,
} from './code-prompt.js';

const ran: CodeResult = {
  language: 'python',
  exitCode: 0,
  stdout: 'hello\n',
  stderr: '',
  truncated: false,
  timedOut: false,
  files: [],
};

describe('formatCodeResult', () => {
  it('writes the header, the exit code and stdout fenced; stderr and files only when there are any', () => {
    expect(RUN_CODE_TOOL).toBe('run_code');
    expect(formatCodeResult(ran)).toBe(
      `${CODE_RESULT_HEADER} python\nexit: 0\nstdout:\n\`\`\`\nhello\n\n\`\`\``,
    );
    expect(
      formatCodeResult({
        ...ran,
        language: 'shell',
        exitCode: 2,
        stdout: 'a',
        stderr: 'oops',
        files: ['out.png', 'data.csv'],
      }),
    ).toBe(
      [
        'Code run result: shell',
        'exit: 2',
        'stdout:',
        '```',
        'a',
        '```',
        'stderr:',
        '```',
        'oops',
        '```',
        'files: out.png, data.csv',
      ].join('\n'),
    );
  });

  it('says when the run timed out, left no exit code or was cut', () => {
    const text = (result: Partial<CodeResult>) => formatCodeResult({ ...ran, ...result }).split('\n');
    expect(text({ timedOut: true, exitCode: null }).slice(1, 2)).toEqual(['timed out']);
    expect(text({ timedOut: true, exitCode: 137 }).slice(1, 2)).toEqual(['timed out (exit 137)']);
    expect(text({ exitCode: null }).slice(1, 2)).toEqual(['exit: none']);
    expect(text({ truncated: true }).slice(1, 4)).toEqual(['exit: 0', '(output truncated)', 'stdout:']);
  });

  it('fences output holding fences with a longer fence', () => {
    const text = formatCodeResult({ ...ran, stdout: '```js\nx\n```' });
    expect(text).toContain('stdout:\n````\n```js\nx\n```\n````');
  });
});

describe('parseCodeResult', () => {
  it.each<[string, Partial<CodeResult>]>([
    ['a plain run', {}],
    ['no output', { stdout: '' }],
    ['a blank line of output', { stdout: '\n' }],
    ['stderr and files', { stderr: 'warning\nline 2\n', files: ['a.txt', 'dir/b.csv'], exitCode: 1 }],
    ['a timeout', { timedOut: true, exitCode: null, truncated: true }],
    ['a timeout with an exit code', { timedOut: true, exitCode: 137 }],
    ['no exit code', { exitCode: null, language: 'shell' }],
    ['a negative exit code', { exitCode: -9 }],
    ['fences in the output', { stdout: '```\ncode\n````\n', stderr: '``` x' }],
    ['lines that look like the format', { stdout: 'stderr:\n```\nfiles: x\n' }],
    ['carriage returns', { stdout: 'a\r\nb\r\n' }],
  ])('reads back %s', (_, change) => {
    const result = { ...ran, ...change };
    expect(parseCodeResult(formatCodeResult(result))).toEqual(result);
  });

  it('is undefined for any other text', () => {
    expect(parseCodeResult('The tool returned: 3')).toBeUndefined();
    expect(parseCodeResult('Code run result: ruby\nexit: 0\nstdout:\n```\n\n```')).toBeUndefined();
    expect(parseCodeResult('Code run result: python\nexit: maybe\nstdout:\n```\n\n```')).toBeUndefined();
    expect(parseCodeResult('Code run result: python\nexit: 0\nstdout:\n```\nunclosed')).toBeUndefined();
    expect(parseCodeResult('Code run result: python\nexit: 0')).toBeUndefined();
  });
});

describe('fencedCode', () => {
  it('reads python, py, sh, bash, shell and untagged blocks', () => {
    expect(fencedCode('Run this:\n```python\nprint(1 + 1)\n```\nthanks')).toEqual({
      language: 'python',
      code: 'print(1 + 1)',
    });
    expect(fencedCode('```py\nx = 1\nprint(x)\n```')).toEqual({
      language: 'python',
      code: 'x = 1\nprint(x)',
    });
    expect(fencedCode('```Python3\nprint(1)\n```')).toBeUndefined();
    for (const tag of ['sh', 'bash', 'shell', 'SHELL', ''])
      expect(fencedCode(`go\n\`\`\`${tag}\nls -l\n\`\`\``)).toEqual({ language: 'shell', code: 'ls -l' });
  });

  it('takes the first block only, and nothing when its tag is another language', () => {
    expect(fencedCode('```sh\necho 1\n```\n```python\nprint(2)\n```')).toEqual({
      language: 'shell',
      code: 'echo 1',
    });
    expect(fencedCode('```js\nconsole.log(1)\n```\n```python\nprint(2)\n```')).toBeUndefined();
  });

  it('is undefined without a block or with an empty one', () => {
    expect(fencedCode('print(1)')).toBeUndefined();
    expect(fencedCode('inline ```print(1)``` is no block')).toBeUndefined();
    expect(fencedCode('```python\n  \n```')).toBeUndefined();
  });

  it('ends a block at a fence at least as long as the opening one, or at the end of the message', () => {
    expect(fencedCode('````\necho "```"\n```\n````\nafter')).toEqual({
      language: 'shell',
      code: 'echo "```"\n```',
    });
    expect(fencedCode('```python\r\nprint(1)\r\n')).toEqual({ language: 'python', code: 'print(1)\n' });
    expect(fencedCode('  ```bash extra words\necho hi\n  ```')).toEqual({
      language: 'shell',
      code: 'echo hi',
    });
  });
});
