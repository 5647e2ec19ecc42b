import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokenLinks } from './doc-links.js';
import { CONFIGURATION_DOC, configurationDoc } from './generated-docs.js';

const root = join(import.meta.dirname, '..');
const committed = (path: string): string => readFileSync(join(root, path), 'utf8');

describe('the docs', () => {
  it('keep the configuration page as the config schema gives it (run `npm run docs` and commit the result)', async () => {
    expect(committed(CONFIGURATION_DOC)).toBe(await configurationDoc());
  });

  it('link only to files and headings that exist', () => {
    expect(brokenLinks(root)).toEqual([]);
  });

  it('keep the README a ten-minute read (at most 250 lines)', () => {
    expect(committed('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });
});
