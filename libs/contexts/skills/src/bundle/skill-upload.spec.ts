import { strToU8, zipSync } from 'fflate';
import { ValidationError } from '#kernel';
import { readSkillUpload } from './skill-upload.js';

async function refusal(run: () => Promise<unknown>): Promise<ValidationError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

const SKILL_MD = '---\nname: notes\ndescription: Takes notes.\n---\nWrite notes in Markdown.\n';
const manifest = { name: 'notes', description: 'Takes notes.', instructions: 'Write notes in Markdown.' };

describe('reading an uploaded Skill file', () => {
  it.each(['SKILL.md', 'notes.MD', 'notes.markdown', 'C:\\fakepath\\SKILL.md'])(
    'reads %j as a SKILL.md without reference files',
    async (name) => {
      expect(await readSkillUpload(name, strToU8(SKILL_MD))).toEqual({ manifest, files: [] });
    },
  );

  it('reads a .zip as a bundle', async () => {
    const zip = zipSync({ 'SKILL.md': strToU8(SKILL_MD), 'ref.md': strToU8('ref') });
    expect(await readSkillUpload('notes.zip', zip)).toEqual({
      manifest,
      files: [{ path: 'ref.md', bytes: strToU8('ref') }],
    });
  });

  it('reads bytes opening like a zip as a zip, whatever the name', async () => {
    const zip = zipSync({ 'SKILL.md': strToU8(SKILL_MD) });
    expect(await readSkillUpload('SKILL.md', zip)).toEqual({ manifest, files: [] });
    expect((await readSkillUpload('upload', zip)).manifest).toEqual(manifest);
  });

  it('refuses a .zip that is not one with 400 zip_corrupt', async () => {
    expect(await refusal(() => readSkillUpload('notes.zip', strToU8(SKILL_MD)))).toMatchObject({
      code: 'zip_corrupt',
      param: 'file',
    });
  });

  it('passes on the errors of SKILL.md', async () => {
    expect(await refusal(() => readSkillUpload('SKILL.md', strToU8('# no frontmatter')))).toMatchObject({
      code: 'invalid_frontmatter',
      param: 'file',
    });
    expect(await refusal(() => readSkillUpload('SKILL.md', new Uint8Array([0xc3, 0x28])))).toMatchObject({
      code: 'invalid_encoding',
    });
  });

  it.each(['notes.txt', 'notes', 'SKILL.md.exe', 'archive.tar.gz', 'notes.md.txt', ''])(
    'refuses %j with 400 unsupported_skill_file',
    async (name) => {
      const error = await refusal(() => readSkillUpload(name, strToU8(SKILL_MD)));
      expect(error).toMatchObject({ kind: 'validation', code: 'unsupported_skill_file', param: 'file' });
      expect(error.message).toContain(JSON.stringify(name));
    },
  );
});
