/**
 * docs/plugins.md's complete examples compile as written (issue 34: "examples that compile").
 * A complete example is a ```ts block that starts with its imports and exports what it defines,
 * as a plugin's file does; each is compiled in memory, as a file of this package, by the
 * TypeScript compiler with the repository's settings. The examples that are fragments of a
 * handler or a test are checked in context by `auth/docs-examples.test-d.ts`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, expect, it } from 'vitest';
import { programOf } from '../test/typescript-program.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Each complete example of the page: its first line, and its code. */
function completeExamples(markdown: string): { title: string; code: string }[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .filter((code) => code.startsWith('import ') && /^export /m.test(code))
    .map((code) => ({ title: code.split('\n', 1)[0] ?? '', code }));
}

/** `file: line: message` for each diagnostic `tsc` gives the examples. */
function compile(examples: readonly { code: string }[]): string[] {
  const code = new Map(
    examples.map((example, index) => [
      join(import.meta.dirname, `plugins-md-example-${index + 1}.ts`),
      example.code,
    ]),
  );
  const program = programOf(code);
  return [...code.keys()].flatMap((name) =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(name)).map((diagnostic) => {
      const at = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const where = `${name.slice(import.meta.dirname.length + 1)}:${(at?.line ?? 0) + 1}`;
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    }),
  );
}

const examples = completeExamples(readFileSync(join(ROOT, 'docs', 'plugins.md'), 'utf8'));
const broken = completeExamples(
  "```ts\nimport { defineTool } from '@gateway/sdk';\nimport { z } from 'zod';\n\nexport const t = defineTool({ path: 'a.b.c', name: 'C', description: 'C.', inputSchema: z.string(), handler: () => 1 });\n```\n",
);
let messages: string[] = [];

// The page's examples and the broken one in one program: one type checker resolves the sdk's and
// zod's types once (a program each took most of this file's time). In a hook: that compile takes
// longer than a test's limit on a busy machine, and is given its own.
beforeAll(() => {
  messages = compile([...examples, ...broken]);
}, 180_000);

it("docs/plugins.md's complete examples compile as written", () => {
  // The quick start, typed providers, your own OAuth provider and approvals, at least.
  expect(examples.length).toBeGreaterThanOrEqual(4);
  expect(messages.filter((message) => !message.startsWith(brokenFile()))).toEqual([]);
});

it('a complete example that does not compile is reported with its line', () => {
  expect(broken).toHaveLength(1);
  expect(messages.filter((message) => message.startsWith(brokenFile()))).toEqual([
    expect.stringMatching(/^plugins-md-example-\d+\.ts:4: .*inputSchema must be a z\.object/),
  ]);
});

/** The name the broken example is compiled under: after the page's. */
function brokenFile(): string {
  return `plugins-md-example-${examples.length + 1}.ts:`;
}
