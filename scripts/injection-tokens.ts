// Nest resolves a constructor parameter by the type TypeScript records for it (`design:paramtypes`) unless `@Inject`
// names its token. A union (`X | null`), an interface or a type-only import is recorded as Object, which no provider
// answers: a required parameter fails the start loudly, but an `@Optional()` one is silently left out. This finds
// the optional parameters whose type is not a class the file imports or declares: each must name its token. Read
// without the type checker, a name imported as a value is taken for a class (an interface imported without `type`
// would pass).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { productionFiles } from './size-limits.js';

/** The names a decorator list calls (`@Optional()`, `@Inject(X)`). */
const decoratorNames = (node: ts.ParameterDeclaration): string[] =>
  (ts.getDecorators(node) ?? []).flatMap((decorator) =>
    ts.isCallExpression(decorator.expression) && ts.isIdentifier(decorator.expression.expression)
      ? [decorator.expression.expression.text]
      : [],
  );

/** Names a file can use as values: classes it declares, and what it imports other than as types. */
function valueNames(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isClassDeclaration(statement) && statement.name) names.add(statement.name.text);
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) names.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) if (!element.isTypeOnly) names.add(element.name.text);
  }
  return names;
}

/** `file:line parameter` for each optional constructor parameter Nest could not resolve by its type. */
export function untypedOptionals(root: string): string[] {
  const found: string[] = [];
  for (const path of productionFiles(root)) {
    const text = readFileSync(join(root, path), 'utf8');
    if (!text.includes('@Optional(')) continue;
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const values = valueNames(source);
    const visit = (node: ts.Node): void => {
      if (ts.isParameter(node) && ts.isConstructorDeclaration(node.parent)) {
        const decorators = decoratorNames(node);
        const type = node.type;
        const resolvable =
          type !== undefined &&
          ts.isTypeReferenceNode(type) &&
          ts.isIdentifier(type.typeName) &&
          values.has(type.typeName.text);
        // `@Inject(token)`, or a library's own (`@InjectCommander()`), names the token.
        const named = decorators.some((name) => name.startsWith('Inject'));
        if (decorators.includes('Optional') && !named && !resolvable) {
          const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          found.push(`${path}:${line} ${node.name.getText(source)}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
