// The shape every aggregate's decision takes (docs/adding-things.md, "A command"): its decider lives in
// `<aggregate>.decider.ts` beside a given/when/then spec `<aggregate>.decider.spec.ts`, and decides through small
// functions, one per command, none over 60 lines. It parses the sources with the TypeScript compiler and prints what
// it found.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/** The kit's own interface and the spec helper are not aggregates. */
const KIT = /^libs\/core\/(eventsourcing|testing)\/src\//;

const MAX_DECISION_LINES = 60;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const parse = (path: string) =>
  ts.createSourceFile(
    path,
    readFileSync(join(ROOT, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.TS,
  );

const typedAsDecider = (node: ts.VariableDeclaration, file: ts.SourceFile) =>
  !!node.type && ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(file) === 'Decider';

/** An untyped `{ initialState, evolve, decide }`. */
const shapedAsDecider = (node: ts.VariableDeclaration) => {
  const value = node.initializer;
  if (!value || !ts.isObjectLiteralExpression(value)) return false;
  const keys = value.properties.map((property) => property.name?.getText());
  return keys.includes('decide') && keys.includes('evolve');
};

/** Names of the deciders (`Decider<…>`-typed or decider-shaped constants) a file declares. */
function decidersIn(file: ts.SourceFile): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && (typedAsDecider(node, file) || shapedAsDecider(node)))
      names.push(node.name.getText(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

/** Functions of a decider file longer than the bound, as `name (lines)`. */
function longFunctionsIn(file: ts.SourceFile): string[] {
  const long: string[] = [];
  const lineOf = (position: number) => file.getLineAndCharacterOfPosition(position).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(file)) + 1;
      if (lines > MAX_DECISION_LINES) {
        const named =
          node.name ??
          (ts.isPropertyAssignment(node.parent) || ts.isVariableDeclaration(node.parent)
            ? node.parent.name
            : undefined);
        long.push(
          `${named ? named.getText(file) : 'anonymous'} at line ${lineOf(node.getStart(file)) + 1} (${lines} lines)`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return long;
}

describe('where deciders live and how they decide', () => {
  const sources = ['libs']
    .flatMap(sourceFiles)
    .filter((path) => !KIT.test(path))
    .sort();
  const deciderFiles = sources.filter((path) => path.endsWith('.decider.ts'));

  it('every Decider is declared in a <aggregate>.decider.ts file', () => {
    const misplaced = sources
      .filter((path) => !path.endsWith('.decider.ts'))
      .flatMap((path) => decidersIn(parse(path)).map((name) => `${name} in ${path}`));
    console.log(`deciders outside *.decider.ts: ${misplaced.length ? misplaced.join(', ') : 'none'}`);
    expect(misplaced).toEqual([]);
    // Sanity: the scan sees the deciders (a broken scan would find nothing and pass).
    expect(deciderFiles.flatMap((path) => decidersIn(parse(path))).length).toBeGreaterThan(20);
  });

  it('every decider file has a given/when/then spec beside it', () => {
    const withoutSpec = deciderFiles.filter(
      (path) => !existsSync(join(ROOT, path.replace(/\.decider\.ts$/, '.decider.spec.ts'))),
    );
    console.log(`decider files without a spec: ${withoutSpec.length ? withoutSpec.join(', ') : 'none'}`);
    expect(withoutSpec).toEqual([]);
  });

  it(`no function in a decider file is over ${MAX_DECISION_LINES} lines`, () => {
    const long = deciderFiles.flatMap((path) =>
      longFunctionsIn(parse(path)).map((what) => `${path}: ${what}`),
    );
    console.log(
      `functions over ${MAX_DECISION_LINES} lines: ${long.length ? `\n  ${long.join('\n  ')}` : 'none'}`,
    );
    expect(long).toEqual([]);
  });
});
