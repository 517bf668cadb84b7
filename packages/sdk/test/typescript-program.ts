/**
 * One TypeScript program over files held in memory, with the repository's compiler settings, for
 * the tests that show what `tsc` says of code a plugin author writes (the sdk's type-error and
 * docs-example tests). One program for all of a test file's snippets: its type checker resolves
 * zod's and the sdk's types once.
 */
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** `code` (file name to text) compiled in one program; each file's diagnostics are its own. */
export function programOf(code: ReadonlyMap<string, string>): ts.Program {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => code.has(name) || fileExists(name);
  host.readFile = (name) => code.get(name) ?? readFile(name);
  host.getSourceFile = (name, version, ...rest) => {
    const text = code.get(name);
    return text === undefined
      ? getSourceFile(name, version, ...rest)
      : ts.createSourceFile(name, text, version);
  };
  return ts.createProgram([...code.keys()], { ...options, noEmit: true }, host);
}
