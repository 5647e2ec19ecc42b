import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brokenLinks } from './doc-links.js';
import { ARCHITECTURE_DOC, CONFIGURATION_DOC, architectureDoc, configurationDoc } from './generated-docs.js';

const root = join(import.meta.dirname, '..');
const committed = (path: string): string => readFileSync(join(root, path), 'utf8');
const regenerate = 'run `npm run docs` and commit the result';

describe('the docs', () => {
  it(`keep the configuration page as the config schema gives it (${regenerate})`, async () => {
    expect(committed(CONFIGURATION_DOC)).toBe(await configurationDoc());
  });

  it(`keep the architecture's context graph as the imports give it (${regenerate})`, () => {
    expect(committed(ARCHITECTURE_DOC)).toBe(architectureDoc(root));
  });

  it('link only to files and headings that exist', () => {
    expect(brokenLinks(root)).toEqual([]);
  });

  it('keep the README a ten-minute read (at most 250 lines)', () => {
    expect(committed('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });
});
