/**
 * No shipped function of the sdk, the server or the CLI is over 80 lines unless a comment before
 * it says why ("Long because ..."), issue 36. The long functions from before the rule were split
 * into named steps (or, for the CLI's command declarations, explained).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const PACKAGES = join(import.meta.dirname, '..', '..');
const MAX_LINES = 80;

/** Every shipped source file under `dir`: no tests, no type tests, no migrations. */
function shipped(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : shipped(path);
    return entry.name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

function nameOf(node: ts.SignatureDeclaration, owner: string): string {
  let name: string | undefined;
  if (ts.isConstructorDeclaration(node)) name = 'constructor';
  else if (node.name !== undefined) name = node.name.getText();
  else if (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) {
    name = node.parent.name.getText();
  }
  return owner === '' ? (name ?? '(callback)') : `${owner}.${name ?? '(callback)'}`;
}

/** Whether a comment before `node` (or the statement declaring it) says why it is long. */
function explained(node: ts.Node, code: string): boolean {
  for (
    let at: ts.Node | undefined = node;
    at !== undefined && !ts.isSourceFile(at);
    at = at.parent
  ) {
    const comments = ts.getLeadingCommentRanges(code, at.getFullStart()) ?? [];
    if (comments.some((range) => /long because/i.test(code.slice(range.pos, range.end)))) {
      return true;
    }
    if (ts.isStatement(at) || ts.isClassElement(at)) break;
  }
  return false;
}

/** `<file>: <function>` for each function over {@link MAX_LINES} lines with no reason given. */
export function longFunctions(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node, owner: string): void => {
    let inner = owner;
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      inner = nameOf(node, owner);
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      if (last - first + 1 > MAX_LINES && !explained(node, code)) found.push(`${file}: ${inner}`);
    } else if (ts.isClassDeclaration(node) && node.name !== undefined) {
      inner = node.name.text;
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, '');
  return found;
}

describe('shipped functions', () => {
  it(`are at most ${MAX_LINES} lines, or say why`, () => {
    const files = ['sdk', 'server', 'cli'].flatMap((pkg) => shipped(join(PACKAGES, pkg, 'src')));
    expect(files.length).toBeGreaterThan(300);
    const found = files.flatMap((path) =>
      longFunctions(relative(PACKAGES, path), readFileSync(path, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('the check fails on a long function, and passes one whose comment says why', () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const code = `export function big() {\n${body}\n}\n`;
    expect(longFunctions('x.ts', code)).toEqual(['x.ts: big']);
    expect(longFunctions('x.ts', `// Long because: one table of cases.\n${code}`)).toEqual([]);
    expect(longFunctions('x.ts', `export const small = () => 1;\n`)).toEqual([]);
  });
});
