/**
 * What `tsc` prints for the common slips of a plugin author (issue 34): the type tests
 * (`define-tool.test-d.ts`) show that they fail to compile; this shows what the author reads.
 * A tool file with the slip is compiled in memory, beside this one, by the TypeScript compiler.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { programOf } from '../../test/typescript-program.js';

/**
 * The diagnostics `tsc` gives for each of `slips` (name to code), each a file of this folder,
 * one message per entry. All in one program: one type checker resolves zod's and the sdk's types
 * once for every slip (a program per slip took most of this file's time), and each file's
 * diagnostics are its own.
 */
function compile(slips: Record<string, string>): Record<string, string[]> {
  const code = new Map(
    Object.entries(slips).map(([name, text]) => [
      join(import.meta.dirname, `slip-${name}.ts`),
      text,
    ]),
  );
  const program = programOf(code);
  return Object.fromEntries(
    Object.keys(slips).map((name) => [
      name,
      ts
        .getPreEmitDiagnostics(
          program,
          program.getSourceFile(join(import.meta.dirname, `slip-${name}.ts`)),
        )
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    ]),
  );
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

let compiled: Record<string, string[]> = {};

/** The messages of the slip `name`. */
function messagesOf(name: string): string[] {
  const messages = compiled[name];
  if (messages === undefined) throw new Error(`no slip named ${name}`);
  return messages;
}

// In a hook: the one compile takes most of this file's time, longer than a test's limit on a
// busy machine, and is given its own.
beforeAll(() => {
  compiled = compile({
    nonObjectInput: tool(`inputSchema: z.string(),
  async handler(_ctx, query) { return query; },`),
    syncHandler: tool(`inputSchema: z.object({ query: z.string() }),
  outputSchema: z.object({ count: z.number() }),
  handler: (_ctx, { query }) => ({ count: query.length }),`),
    syncHandlerWrongField: tool(`inputSchema: z.object({ query: z.string() }),
  outputSchema: z.object({ count: z.number() }),
  handler: (_ctx, { query }) => ({ count: query }),`),
  });
}, 180_000);

describe('the type errors of the common slips (issue 34)', () => {
  it('a non-object inputSchema: tsc says it must be a z.object({...}), with an example', () => {
    expect(messagesOf('nonObjectInput')).toEqual([
      `Type 'ZodString' is not assignable to type '"inputSchema must be a z.object({...}) of named arguments, e.g. z.object({ query: z.string() })"'.`,
    ]);
  });

  it('a sync handler compiles, and its result is checked against outputSchema by field', () => {
    expect(messagesOf('syncHandler')).toEqual([]);
    expect(messagesOf('syncHandlerWrongField')).toEqual([
      `Type 'string' is not assignable to type 'number'.`,
    ]);
  });
});
