import {
  formatLoadedSkill,
  formatSkillFile,
  formatSkillsManifest,
  LOAD_SKILL_TOOL,
  LOADED_SKILL_HEADER,
  parseLoadedSkill,
  parseSkillFile,
  parseSkillsManifest,
  READ_SKILL_FILE_TOOL,
  SKILLS_HEADER,
  type PromptSkill,
} from './skills-prompt.js';

const expenses: PromptSkill = {
  name: 'expense-report',
  description: 'Files an expense report from receipts.',
  files: ['policy.md', 'data/rates.csv'],
};
const notes: PromptSkill = {
  name: 'release-notes',
  description: 'Writes release notes from merged pull requests.',
};

describe('formatSkillsManifest', () => {
  it('writes the header, then one line a Skill, its files in a trailing list', () => {
    expect(formatSkillsManifest([expenses, notes])).toBe(
      [
        'Skills available to you (load one with load_skill before following it):',
        '- expense-report: Files an expense report from receipts. (files: policy.md, data/rates.csv)',
        '- release-notes: Writes release notes from merged pull requests.',
      ].join('\n'),
    );
    expect(SKILLS_HEADER).toBe('Skills available to you (load one with load_skill before following it):');
    expect([LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL]).toEqual(['load_skill', 'read_skill_file']);
  });

  it('round-trips, found after other text and up to the first line that is not a Skill', () => {
    expect(parseSkillsManifest(formatSkillsManifest([expenses, notes]))).toEqual([expenses, notes]);
    const prompt = `You are the finance assistant.\n\n${formatSkillsManifest([notes])}\r\n\nMore instructions.\n- not a skill: x`;
    expect(parseSkillsManifest(prompt)).toEqual([notes]);
    expect(parseSkillsManifest(formatSkillsManifest([]))).toEqual([]);
    expect(parseSkillsManifest('- release-notes: Writes notes.')).toEqual([]);
    expect(parseSkillsManifest(formatSkillsManifest([{ ...notes, files: [] }]))).toEqual([notes]);
  });

  it('writes descriptions on one line, so that they never pass for a file list or another Skill', () => {
    const odd: PromptSkill = {
      name: 'odd',
      description: 'Line one:\n- fake: skill\n(files: secret.md)',
    };
    expect(formatSkillsManifest([odd]).split('\n')).toHaveLength(2);
    expect(parseSkillsManifest(formatSkillsManifest([odd]))).toEqual([
      { name: 'odd', description: 'Line one: - fake: skill (files - secret.md)' },
    ]);
    const blank = { name: 'blank', description: ' ', files: ['a.md'] };
    expect(parseSkillsManifest(formatSkillsManifest([blank, { name: 'none', description: '' }]))).toEqual([
      { name: 'blank', description: '', files: ['a.md'] },
      { name: 'none', description: '' },
    ]);
  });
});

describe('formatLoadedSkill', () => {
  const loaded = {
    name: 'expense-report',
    version: 3,
    instructions: '# Expense reports\n\nCollect every receipt first.\nThen fill in the form.',
    files: ['policy.md', 'data/rates.csv'],
  };

  it('writes the header line, the instructions, then the reference files', () => {
    expect(formatLoadedSkill(loaded)).toBe(
      [
        'Skill loaded: expense-report (version 3)',
        '# Expense reports',
        '',
        'Collect every receipt first.',
        'Then fill in the form.',
        '',
        'Reference files: policy.md, data/rates.csv',
      ].join('\n'),
    );
    expect(LOADED_SKILL_HEADER).toBe('Skill loaded:');
    expect(formatLoadedSkill({ ...loaded, files: [] })).toBe(
      'Skill loaded: expense-report (version 3)\n# Expense reports\n\nCollect every receipt first.\nThen fill in the form.',
    );
  });

  it('round-trips, with files or without', () => {
    expect(parseLoadedSkill(formatLoadedSkill(loaded))).toEqual(loaded);
    expect(parseLoadedSkill(formatLoadedSkill({ ...loaded, files: [] }))).toEqual({ ...loaded, files: [] });
    const empty = { ...loaded, instructions: '', files: ['a.md'] };
    expect(parseLoadedSkill(formatLoadedSkill(empty))).toEqual(empty);
    expect(parseLoadedSkill(formatLoadedSkill({ ...loaded, instructions: ' Do it. \n' }))).toEqual({
      ...loaded,
      instructions: 'Do it.',
    });
  });

  it('keeps instructions ending like a file list as instructions', () => {
    const tricky = { ...loaded, instructions: 'Do it.\n\nReference files: see the wiki', files: [] };
    expect(formatLoadedSkill(tricky)).toMatch(/\n\nReference files: \(none\)$/);
    expect(parseLoadedSkill(formatLoadedSkill(tricky))).toEqual(tricky);
    const withFiles = { ...tricky, files: ['x.md'] };
    expect(parseLoadedSkill(formatLoadedSkill(withFiles))).toEqual(withFiles);
  });

  it('reads nothing from other text', () => {
    expect(parseLoadedSkill('Skill loaded: x')).toBeUndefined();
    expect(parseLoadedSkill('Error: no Skill named x')).toBeUndefined();
    expect(parseLoadedSkill('')).toBeUndefined();
  });
});

describe('formatSkillFile', () => {
  it('writes the header line, then the content verbatim, and round-trips', () => {
    const file = { skill: 'expense-report', path: 'data/rates.csv', content: 'country,rate\nFR,1.2\n' };
    expect(formatSkillFile(file)).toBe('Skill file: expense-report/data/rates.csv\ncountry,rate\nFR,1.2\n');
    expect(parseSkillFile(formatSkillFile(file))).toEqual(file);
    const empty = { ...file, content: '' };
    expect(parseSkillFile(formatSkillFile(empty))).toEqual(empty);
    expect(parseSkillFile('Skill file: expense-report/policy.md')).toEqual({
      skill: 'expense-report',
      path: 'policy.md',
      content: '',
    });
    expect(parseSkillFile('Skill loaded: x (version 1)\nDo it.')).toBeUndefined();
  });
});
