import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { untypedOptionals } from './injection-tokens.js';

const root = join(import.meta.dirname, '..');

it('optional constructor parameters name a class or their token (Nest leaves an unresolvable one out silently)', () => {
  expect(untypedOptionals(root)).toEqual([]);
});

it('finds an optional parameter typed as a union, an interface or a type-only import', () => {
  const tree = mkdtempSync(join(tmpdir(), 'tokens-'));
  for (const top of ['apps', 'projections']) mkdirSync(join(tree, top));
  mkdirSync(join(tree, 'libs'));
  writeFileSync(
    join(tree, 'libs', 'reader.ts'),
    [
      "import { Inject, Optional } from '@nestjs/common';",
      "import type { Clock } from './clock.js';",
      "import { Writes } from './writes.js';",
      'interface Cache { get(): void }',
      'export class Reader {',
      '  constructor(',
      '    @Optional() private readonly writes: Writes | null = null,',
      '    @Optional() private readonly cache?: Cache,',
      '    @Optional() private readonly clock?: Clock,',
      '    @Optional() private readonly kept?: Writes,',
      '    @Optional() @Inject(Writes) private readonly named: Writes | null = null,',
      '  ) {}',
      '}',
    ].join('\n'),
  );
  expect(untypedOptionals(tree)).toEqual([
    'libs/reader.ts:7 writes',
    'libs/reader.ts:8 cache',
    'libs/reader.ts:9 clock',
  ]);
});
