// An int spec: the graph is read by dependency-cruiser in a child process, over every library's sources.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARCHITECTURE_DOC, architectureDoc } from './generated-docs.js';

const root = join(import.meta.dirname, '..');

it("the architecture page's context graph is the one the imports give (run `npm run docs` and commit the result)", () => {
  expect(readFileSync(join(root, ARCHITECTURE_DOC), 'utf8')).toBe(architectureDoc(root));
}, 120_000);
