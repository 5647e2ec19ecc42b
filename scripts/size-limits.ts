// The size rule of the style guide, read from the code: a production file over 300 lines, or a function over 100,
// says why in a comment (`Over 300 lines …` in the file, `Over 100 lines …` above the function), or is cut.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const FILE_LIMIT = 300;
export const FUNCTION_LIMIT = 100;
const FILE_REASON = /over 300 lines/i;
const FUNCTION_REASON = /over 100 lines/i;

/** Production TypeScript: apps/, libs/ and projections/, without specs, contracts, declarations and test support. */
export function productionFiles(root: string): string[] {
  return ['apps', 'libs', 'projections']
    .flatMap((top) =>
      readdirSync(join(root, top), { recursive: true, encoding: 'utf8' }).map((path) => join(top, path)),
    )
    .filter(
      (path) =>
        /\.tsx?$/.test(path) &&
        !/\.(spec|contract)\.ts$|\.d\.ts$/.test(path) &&
        !/(^|\/)(node_modules|dist)\//.test(path) &&
        !path.startsWith('libs/core/testing/'),
    )
    .sort();
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** The comments above the function, or above the declaration that holds it (`const f = () => …`, `key: () => …`). */
function leadingComments(source: ts.SourceFile, node: ts.Node): string {
  const texts: string[] = [];
  for (let at: ts.Node | undefined = node; at && !ts.isSourceFile(at) && !ts.isBlock(at); at = at.parent) {
    for (const range of ts.getLeadingCommentRanges(source.text, at.getFullStart()) ?? [])
      texts.push(source.text.slice(range.pos, range.end));
    if (ts.isStatement(at) || ts.isClassElement(at) || ts.isPropertyAssignment(at)) break;
  }
  return texts.join('\n');
}

/** The function, or one it is written in, says why it is over 100 lines (the outer reason covers its body). */
function excused(source: ts.SourceFile, node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node; at && !ts.isSourceFile(at); at = at.parent)
    if (isFunction(at) && FUNCTION_REASON.test(leadingComments(source, at))) return true;
  return false;
}

const nameOf = (node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string => {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const holder = node.parent;
  if ((ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)) && holder.name)
    return holder.name.getText(source);
  return '(anonymous)';
};

/** What breaks the rule: `path: N lines` for a file, `path:line name: N lines` for a function, each with no reason. */
export function oversized(root: string): string[] {
  const found: string[] = [];
  for (const path of productionFiles(root)) {
    const text = readFileSync(join(root, path), 'utf8');
    const lines = text.split('\n').length;
    if (lines > FILE_LIMIT && !FILE_REASON.test(text)) found.push(`${path}: ${lines} lines`);
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (isFunction(node) && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const span = last - first + 1;
        if (span > FUNCTION_LIMIT && !excused(source, node))
          found.push(`${path}:${first + 1} ${nameOf(node, source)}: ${span} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
