import { ValidationError } from '#kernel';
import {
  MAX_FRONTMATTER_CHARS,
  MAX_SKILL_MD_BYTES,
  type SkillManifest,
  decodeSkillMarkdown,
  parseSkillMarkdown,
  renderSkillMarkdown,
  validateDescription,
  validateSkillName,
} from './skill-manifest.js';

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

const skill = (front: string, body = 'Do the thing.') => `---\n${front}\n---\n${body}\n`;
const parse = (text: string) => parseSkillMarkdown(text, 'file');
const parseRefusal = (text: string) => refusal(() => parse(text));

describe('skill names', () => {
  it.each(['a', 'pdf', 'pdf-tools', 'x1-2-y3', '007', 'a'.repeat(64)])('accepts %j', (name) => {
    expect(validateSkillName(name)).toBe(name);
  });

  it.each([
    '',
    'A',
    'Pdf-tools',
    'pdf_tools',
    'pdf tools',
    ' pdf',
    '-pdf',
    'pdf-',
    'pdf--tools',
    '-',
    'pdf.tools',
    'pdf/tools',
    'café',
    'a'.repeat(65),
  ])('refuses %j with 400 invalid_name on the given param', (name) => {
    const error = refusal(() => validateSkillName(name, 'skill.name'));
    expect(error).toMatchObject({ kind: 'validation', code: 'invalid_name', param: 'skill.name' });
    expect(error.message).toMatch(/lowercase letters, digits and hyphens|required/);
  });

  it('refuses a value that is not a string, on param "name" by default', () => {
    expect(refusal(() => validateSkillName(42))).toMatchObject({ code: 'invalid_name', param: 'name' });
    expect(refusal(() => validateSkillName(undefined)).message).toBe('name is required');
  });
});

describe('skill descriptions', () => {
  it('trims, and accepts 1 to 1024 characters', () => {
    expect(validateDescription('  Fills PDF forms. ')).toBe('Fills PDF forms.');
    expect(validateDescription(`x${' '.repeat(2000)}`)).toBe('x');
    expect(validateDescription('d'.repeat(1024))).toHaveLength(1024);
  });

  it.each([
    ['an empty text', ''],
    ['a blank text', '   \n\t'],
    ['1025 characters', 'd'.repeat(1025)],
  ])('refuses %s with 400 invalid_description', (_case, text) => {
    const error = refusal(() => validateDescription(text));
    expect(error).toMatchObject({ code: 'invalid_description', param: 'description' });
    expect(error.message).toContain('1–1024 characters');
  });

  it('refuses a value that is not a string', () => {
    expect(refusal(() => validateDescription(null, 'desc'))).toMatchObject({
      code: 'invalid_description',
      param: 'desc',
    });
  });
});

describe('SKILL.md frontmatter', () => {
  it('reads every allowed key, the body as the trimmed instructions', () => {
    const manifest = parse(
      skill(
        [
          'name: pdf-tools',
          'description: >-',
          '  Fills PDF forms.',
          '  Use when asked about PDFs.',
          'license: Apache-2.0',
          'compatibility: Requires Python 3.12',
          'allowed-tools: Read Grep, Bash(git log:*)',
          'metadata:',
          '  author: acme',
          '  version: 1.0',
        ].join('\n'),
        '\n\n# PDF tools\n\nRun `scripts/fill.py`.\n\n',
      ),
    );
    expect(manifest).toEqual({
      name: 'pdf-tools',
      description: 'Fills PDF forms. Use when asked about PDFs.',
      instructions: '# PDF tools\n\nRun `scripts/fill.py`.',
      license: 'Apache-2.0',
      compatibility: 'Requires Python 3.12',
      allowedTools: ['Read', 'Grep', 'Bash(git log:*)'],
      metadata: { author: 'acme', version: '1.0' },
    });
  });

  it('reads every scalar as a string (the failsafe schema) and allowed-tools as a YAML list', () => {
    const manifest = parse(
      skill(
        'name: 123\ndescription: true\nallowed-tools:\n  - Read\n  - "Bash(npm test)"\nmetadata:\n  beta: yes',
      ),
    );
    expect(manifest).toMatchObject({
      name: '123',
      description: 'true',
      allowedTools: ['Read', 'Bash(npm test)'],
      metadata: { beta: 'yes' },
    });
  });

  it('accepts a byte order mark and CRLF line ends', () => {
    expect(parse('\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\nline 1\r\nline 2\r\n')).toEqual({
      name: 'a',
      description: 'd',
      instructions: 'line 1\nline 2',
    });
  });

  it.each(['author', 'version', 'tags', 'Name', '__proto__', 'disable-model-invocation'])(
    'refuses the unknown key %j, naming it',
    (key) => {
      const error = parseRefusal(skill(`name: a\ndescription: d\n${key}: x`));
      expect(error).toMatchObject({ code: 'unknown_frontmatter_key', param: 'file' });
      expect(error.message).toContain(JSON.stringify(key));
    },
  );

  it.each([
    ['no frontmatter', '# Title\n\nBody'],
    ['a frontmatter not on the first line', '\n---\nname: a\ndescription: d\n---\nBody'],
    ['no closing line', '---\nname: a\ndescription: d\nBody'],
    ['an empty frontmatter', '---\n---\nBody'],
    ['a list', skill('- name\n- description')],
    ['a plain string', skill('just text')],
    ['malformed YAML', skill('name: a\ndescription: [unclosed')],
    ['a bad indent', skill('name: a\n  description: d')],
    ['duplicate keys', skill('name: a\nname: b\ndescription: d')],
    ['a custom tag', skill('name: a\ndescription: !!js/function "function () {}"')],
    ['a binary tag', skill('name: a\ndescription: d\nlicense: !!binary aGk=')],
    ['a local tag', skill('name: !shell a\ndescription: d')],
    ['a collection as a key', skill('name: a\ndescription: d\n? [x]\n: y')],
    ['a frontmatter too long', skill(`name: a\ndescription: d\n# ${'x'.repeat(MAX_FRONTMATTER_CHARS)}`)],
  ])('refuses %s with 400 invalid_frontmatter', (_case, text) => {
    const error = parseRefusal(text);
    expect(error).toMatchObject({ code: 'invalid_frontmatter', param: 'file' });
    expect(error.message).toMatch(/^SKILL\.md frontmatter: /);
  });

  it('refuses a billion-laughs alias bomb at once', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const previous = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    // Refused by the parser's alias count before anything is expanded (a billion strings would never return): the
    // refusal's reason says so; no wall-clock bound, which a loaded machine could miss.
    const error = parseRefusal(skill(`name: a\ndescription: d\nmetadata:\n  ${levels.join('\n  ')}`));
    expect(error).toMatchObject({ code: 'invalid_frontmatter', param: 'file' });
    expect(error.message).toContain('resource exhaustion');
  });

  it('reads a few aliases', () => {
    expect(parse(skill('name: &n a\ndescription: *n')).description).toBe('a');
  });

  it.each([
    ['a missing name', 'description: d', 'invalid_name', "'name' is required"],
    ['an invalid name', 'name: PDF_Tools\ndescription: d', 'invalid_name', '"PDF_Tools"'],
    ['a name as a list', 'name: [a]\ndescription: d', 'invalid_name', 'required'],
    ['a missing description', 'name: a', 'invalid_description', "'description' is required"],
    ['an empty description', 'name: a\ndescription: ""', 'invalid_description', '1–1024'],
    ['a long description', `name: a\ndescription: ${'d'.repeat(1025)}`, 'invalid_description', '1–1024'],
    ['an empty license', 'name: a\ndescription: d\nlicense:', 'invalid_license', "'license'"],
    [
      'a long compatibility',
      `name: a\ndescription: d\ncompatibility: ${'c'.repeat(501)}`,
      'invalid_compatibility',
      '500',
    ],
    ['a license as a map', 'name: a\ndescription: d\nlicense: {a: b}', 'invalid_license', "'license'"],
    [
      'empty allowed-tools',
      'name: a\ndescription: d\nallowed-tools: ""',
      'invalid_allowed_tools',
      'non-empty',
    ],
    [
      'nested allowed-tools',
      'name: a\ndescription: d\nallowed-tools: [[a]]',
      'invalid_allowed_tools',
      'tool names',
    ],
    ['metadata as a string', 'name: a\ndescription: d\nmetadata: x', 'invalid_metadata', 'mapping'],
    ['nested metadata', 'name: a\ndescription: d\nmetadata:\n  a:\n    b: c', 'invalid_metadata', '"a"'],
  ])('refuses %s with its own code', (_case, front, code, words) => {
    const error = parseRefusal(skill(front));
    expect(error).toMatchObject({ code, param: 'file' });
    expect(error.message).toContain(words);
  });

  it('refuses empty or overlong instructions with 400 invalid_instructions', () => {
    expect(parseRefusal('---\nname: a\ndescription: d\n---\n  \n\n')).toMatchObject({
      code: 'invalid_instructions',
      param: 'file',
    });
    expect(parseRefusal('---\nname: a\ndescription: d\n---')).toMatchObject({ code: 'invalid_instructions' });
    const error = parseRefusal(skill('name: a\ndescription: d', 'i'.repeat(100_001)));
    expect(error).toMatchObject({ code: 'invalid_instructions' });
    expect(error.message).toContain('100000');
    expect(parse(skill('name: a\ndescription: d', 'i'.repeat(100_000))).instructions).toHaveLength(100_000);
  });
});

describe('SKILL.md bytes', () => {
  it('decodes UTF-8 and refuses other bytes or too many', () => {
    expect(decodeSkillMarkdown(new TextEncoder().encode('---\nname: é'), 'file')).toBe('---\nname: é');
    expect(refusal(() => decodeSkillMarkdown(new Uint8Array([0x2d, 0xff, 0xfe]), 'file'))).toMatchObject({
      code: 'invalid_encoding',
      param: 'file',
    });
    expect(refusal(() => decodeSkillMarkdown(new Uint8Array(MAX_SKILL_MD_BYTES + 1), 'file'))).toMatchObject({
      code: 'skill_md_too_large',
    });
  });
});

describe('rendering SKILL.md', () => {
  it('renders a manifest that parses back to itself', () => {
    const manifest: SkillManifest = {
      name: 'pdf-tools',
      description: 'Fills forms: "quoted", #hash, and --- dashes.\nSecond line.',
      instructions: '# PDF\n\n---\n\nA rule above, then `code`.',
      license: '123',
      compatibility: 'true',
      allowedTools: ['Read', 'Bash(git log:*)'],
      metadata: { version: '1.0', '2': 'null', 'with space': ' padded ' },
    };
    const text = renderSkillMarkdown(manifest);
    expect(text.startsWith('---\nname: pdf-tools\n')).toBe(true);
    expect(parse(text)).toEqual(manifest);
  });

  it('leaves out the optional keys a manifest lacks', () => {
    const manifest = { name: 'a', description: 'd', instructions: 'Do it.', metadata: {}, allowedTools: [] };
    expect(renderSkillMarkdown(manifest)).toBe('---\nname: a\ndescription: d\n---\n\nDo it.\n');
    expect(parse(renderSkillMarkdown(manifest))).toEqual({
      name: 'a',
      description: 'd',
      instructions: 'Do it.',
    });
  });
});
