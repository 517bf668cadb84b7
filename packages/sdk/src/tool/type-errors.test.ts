/**
 * What `tsc` prints for the common slips of a plugin author (issue 34): the type tests
 * (`define-tool.test-d.ts`) show that they fail to compile; this shows what the author reads.
 * A tool file with the slip is compiled in memory, beside this one, by the TypeScript compiler.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

// Each compile reuses the last one's unchanged files (zod's types, the sdk's), as `tsc --watch` does.
let previous: ts.Program | undefined;

/** The diagnostics `tsc` gives for `code`, as a file of this folder, one message per entry. */
function compile(code: string): string[] {
  const file = join(import.meta.dirname, 'slip.ts');
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? code : readFile(name));
  host.getSourceFile = (name, version, ...rest) =>
    name === file
      ? ts.createSourceFile(name, code, version)
      : getSourceFile(name, version, ...rest);
  const program = ts.createProgram([file], { ...options, noEmit: true }, host, previous);
  previous = program;
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

const tool = (fields: string) => `
import { z } from 'zod';
import { defineTool } from './define-tool.js';

export const searchNotes = defineTool({
  path: 'notes.notes.search',
  name: 'Search Notes',
  description: 'Searches the notes.',
  ${fields}
});
`;

describe('the type errors of the common slips (issue 34)', () => {
  it('a non-object inputSchema: tsc says it must be a z.object({...}), with an example', () => {
    const messages = compile(
      tool(`inputSchema: z.string(),
  async handler(_ctx, query) { return query; },`),
    );
    expect(messages).toEqual([
      `Type 'ZodString' is not assignable to type '"inputSchema must be a z.object({...}) of named arguments, e.g. z.object({ query: z.string() })"'.`,
    ]);
  });

  it('a sync handler compiles, and its result is checked against outputSchema by field', () => {
    expect(
      compile(
        tool(`inputSchema: z.object({ query: z.string() }),
  outputSchema: z.object({ count: z.number() }),
  handler: (_ctx, { query }) => ({ count: query.length }),`),
      ),
    ).toEqual([]);
    const messages = compile(
      tool(`inputSchema: z.object({ query: z.string() }),
  outputSchema: z.object({ count: z.number() }),
  handler: (_ctx, { query }) => ({ count: query }),`),
    );
    expect(messages).toEqual([`Type 'string' is not assignable to type 'number'.`]);
  });
});
