import {
  firstInstruction,
  followingSkill,
  namesWord,
  skillFileNamed,
  skillToLoad,
} from './offline-skills.js';

describe('Offline Skills', () => {
  it('finds a name as a word of its own, hyphens included, in any case', () => {
    expect(namesWord('Use the PDF-Forms skill.', 'pdf-forms')).toBe(true);
    expect(namesWord('use pdf-forms', 'pdf')).toBe(false);
    expect(namesWord('use pdf-forms-v2', 'pdf-forms')).toBe(false);
    expect(namesWord('see rates.csv.', 'rates.csv')).toBe(true);
    expect(namesWord('see ratesXcsv', 'rates.csv')).toBe(false);
    expect(namesWord('anything', ' ')).toBe(false);
  });

  it('loads nothing without a name or two description words', () => {
    const skills = [{ name: 'pdf', description: 'Fills PDF forms from data.' }];
    expect(skillToLoad('the forms and my data', skills)).toBe(skills[0]);
    expect(skillToLoad('the forms', skills)).toBeUndefined();
    expect(skillToLoad('anything', [])).toBeUndefined();
  });

  it('finds a file by path, file name or base name, in the listed order', () => {
    const files = ['templates/report.md', 'data/rates.csv'];
    expect(skillFileNamed('use data/rates.csv', files)).toBe('data/rates.csv');
    expect(skillFileNamed('the rates please, and the report', files)).toBe('templates/report.md');
    expect(skillFileNamed('nothing named', files)).toBeUndefined();
  });

  it('quotes the first sentence or line of the instructions, past front matter and headings', () => {
    expect(firstInstruction('---\nname: x\n---\n# Title\n\nStep one. Step two.')).toBe('Step one.');
    expect(firstInstruction('  Do this\nthen that')).toBe('Do this');
    expect(firstInstruction('## Only a heading')).toBe('Only a heading');
    expect(firstInstruction('')).toBe('(the skill has no instructions)');
    expect(
      followingSkill(
        { name: 'x', version: 1, instructions: 'Go.', files: ['a.md'] },
        { skill: 'x', path: 'a.md', content: '' },
      ),
    ).toBe('"x" (version 1): Go. Reference file a.md: (empty)');
  });
});
