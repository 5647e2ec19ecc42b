import { join } from 'node:path';
import { oversized } from './size-limits.js';

const root = join(import.meta.dirname, '..');

it('production files over 300 lines and functions over 100 say why (docs/adding-things.md), or are cut', () => {
  expect(oversized(root)).toEqual([]);
});
