import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { linkWorkspace, makeTempDir, writeFiles } from '#test/support/temp-project.js';
import { CliError } from '../../cli-error.js';
import type { ProcessRunner } from '../../process/run-process.js';
import { runTest, type TestReport } from './index.js';

const validPlugin = `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

const tool = (path: string, name: string) =>
  defineTool({
    path,
    name,
    description: 'Does a thing.',
    inputSchema: z.object({}),
    async handler() {
      return {};
    },
  });

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  tools: [tool('demo.items.list', 'List Items'), tool('demo.items.get', 'Get Item')],
});
`;

// definePlugin() throws while the module loads; gateway test must still list every problem.
const invalidPlugin = `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: '',
  tools: [
    defineTool({
      path: 'demo.items.list',
      name: 'list items',
      description: 'Lists items.',
      inputSchema: z.object({}),
      authProvider: 'github',
      async handler() {
        return [];
      },
    }),
  ],
});
`;

async function project(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir();
  await writeFiles(dir, {
    'package.json': JSON.stringify({ name: 'demo', type: 'module' }),
    ...files,
  });
  await linkWorkspace(dir);
  return dir;
}

async function rejection(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!CliError.isInstance(error)) throw new Error(`expected a CliError, got ${String(error)}`);
  return error;
}

const passing: ProcessRunner = async () => ({ exitCode: 0 });

describe('gateway test', () => {
  it('validates a plugin, then runs its tests', async () => {
    const cwd = await project({ 'src/index.ts': validPlugin });
    const calls: string[][] = [];
    const run: ProcessRunner = async (command, args) => {
      calls.push([command, ...args]);
      return { exitCode: 0 };
    };
    await writeFiles(cwd, { 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) });
    const io = createTestIo();
    const report = await runTest({ cwd, io, runProcess: run });
    expect(report).toEqual({
      ok: true,
      plugin: 'demo',
      tools: ['demo.items.list', 'demo.items.get'],
      problems: [],
      tests: { passed: true },
    });
    expect(io.out()).toContain('✓ plugin demo: 2 tools valid');
    expect(calls).toEqual([['npm', 'test']]);
  });

  it('lists every problem with its tool and field, and exits 1', async () => {
    const cwd = await project({ 'src/index.ts': invalidPlugin });
    const io = createTestIo();
    const error = await rejection(runTest({ cwd, io, runProcess: passing }));
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe('Plugin demo has 3 problems; fix them and run `gateway test` again');
    expect(io.out().split('\n')).toEqual([
      '✗ plugin demo: 3 problems',
      '  - plugin demo, field description: must not be empty',
      '  - plugin demo, tool demo.items.list, field name: must be in Title Case, e.g. "List Items"',
      '  - plugin demo, tool demo.items.list, field authProvider: names no provider of this plugin (declared: none)',
      '',
    ]);
  });

  // Issue 18: `gateway test` passed a tool path that `gateway dev` and `gateway register` refuse.
  it('refuses tool paths outside the plugin id, as gateway dev and register do', async () => {
    const cwd = await project({
      'src/index.ts': validPlugin
        .replace("id: 'demo'", "id: 'my_tools'")
        .replace(
          "tool('demo.items.list', 'List Items')",
          "tool('my_tools.items.list', 'List Items')",
        )
        .replace("'demo.items.get'", "'other.math.add'"),
    });
    const io = createTestIo();
    const error = await rejection(runTest({ cwd, io, runProcess: passing }));
    expect(error.message).toBe(
      'Plugin my_tools has 1 problem; fix them and run `gateway test` again',
    );
    expect(io.out().split('\n')).toEqual([
      '✗ plugin my_tools: 1 problem',
      '  - plugin my_tools, tool other.math.add, field path: must start with "my_tools." (the plugin id, which `gateway dev` and `gateway register` use as namespace), e.g. "my_tools.math.add"',
      '',
    ]);
    // An id that cannot be a namespace is refused, as the registration would be.
    const dashed = await project({
      'src/index.ts': validPlugin
        .replace("id: 'demo'", "id: 'my-tools'")
        .replaceAll("'demo.items.", "'my_tools.items."),
    });
    const dashedIo = createTestIo();
    await rejection(runTest({ cwd: dashed, io: dashedIo, json: true, runProcess: passing }));
    const report: TestReport = JSON.parse(dashedIo.out());
    expect(report.problems).toContainEqual({
      plugin: 'my-tools',
      field: 'id',
      message:
        'is the namespace its tools are registered under, so must be 1-64 of a-z, 0-9 and _ (underscore style), e.g. "my_tools"',
    });
  });

  it('prints only the JSON report on stdout with --json', async () => {
    const cwd = await project({ 'src/index.ts': invalidPlugin });
    const io = createTestIo();
    await rejection(runTest({ cwd, io, json: true, runProcess: passing }));
    const report: TestReport = JSON.parse(io.out());
    expect(report).toEqual({
      ok: false,
      plugin: 'demo',
      tools: ['demo.items.list'],
      problems: [
        { plugin: 'demo', field: 'description', message: 'must not be empty' },
        expect.objectContaining({ tool: 'demo.items.list', field: 'name' }),
        expect.objectContaining({ tool: 'demo.items.list', field: 'authProvider' }),
      ],
      tests: null,
    });
  });

  it('validates a default export that skipped definePlugin(), and requires definePlugin()', async () => {
    const raw = await project({
      'src/index.ts': "export default { id: 'Demo', name: 'Demo', description: 'x', tools: [] };",
    });
    const io = createTestIo();
    await rejection(runTest({ cwd: raw, io, runTests: false }));
    expect(io.out()).toContain('field id: must be lowercase');
    expect(io.out()).toContain('field tools: must hold at least one tool');

    const valid = validPlugin.replace('export default definePlugin(', 'export default (');
    const undefined_ = await project({ 'src/index.ts': valid });
    const error = await rejection(
      runTest({ cwd: undefined_, io: createTestIo(), runTests: false }),
    );
    expect(error.message).toBe(
      'The default export of src/index.ts is not a plugin; wrap it in `definePlugin({ ... })`',
    );
  });

  it('fails when the tests fail, keeping the JSON report on stdout and test output on stderr', async () => {
    const cwd = await project({ 'src/index.ts': validPlugin });
    const failing: ProcessRunner = async (_command, _args, options) => {
      options.onStdout?.('FAIL src/index.test.ts\n');
      return { exitCode: 1 };
    };
    await writeFiles(cwd, { 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) });
    const io = createTestIo();
    const error = await rejection(runTest({ cwd, io, json: true, runProcess: failing }));
    expect(error.message).toBe('Tests failed; fix them and run `gateway test` again');
    expect(JSON.parse(io.out())).toMatchObject({
      ok: false,
      plugin: 'demo',
      tests: { passed: false },
    });
    expect(io.err()).toContain('FAIL src/index.test.ts');
  });

  it('fails, saying what to do, when there is nothing to run the tests with', async () => {
    const cwd = await project({ 'src/index.ts': validPlugin });
    const io = createTestIo();
    const error = await rejection(runTest({ cwd, io, json: true }));
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe(
      'No tests ran: vitest is not installed and package.json has no test script; run `npm install`, or pass --no-tests to only check the definition',
    );
    expect(JSON.parse(io.out())).toEqual({
      ok: false,
      plugin: 'demo',
      tools: ['demo.items.list', 'demo.items.get'],
      problems: [{ message: error.message }],
      tests: null,
    });
    // Only checking the definition was asked for: that passes.
    const checked = createTestIo();
    await expect(runTest({ cwd, io: checked, json: true, runTests: false })).resolves.toEqual({
      ok: true,
      plugin: 'demo',
      tools: ['demo.items.list', 'demo.items.get'],
      problems: [],
      tests: null,
    });
    expect(JSON.parse(checked.out())).toMatchObject({ ok: true });
  });

  // This package.json has no "type": "module", so the plugin loads as CommonJS.
  it('loads the file package.json names in gateway.plugin', async () => {
    const cwd = await project({ 'lib/plugin.ts': validPlugin, 'src/index.ts': invalidPlugin });
    await writeFiles(cwd, {
      'package.json': JSON.stringify({ gateway: { plugin: 'lib/plugin.ts' } }),
    });
    await expect(runTest({ cwd, io: createTestIo(), runTests: false })).resolves.toMatchObject({
      plugin: 'demo',
      problems: [],
    });
  });

  it('says where it looked when there is no plugin, in the JSON report too', async () => {
    const cwd = await project({});
    const error = await rejection(runTest({ cwd, io: createTestIo() }));
    expect(error.message).toContain('No plugin found in');
    expect(error.message).toContain('gateway new <name>');

    const io = createTestIo();
    const again = await rejection(runTest({ cwd, io, json: true }));
    expect(again.exitCode).toBe(1);
    expect(JSON.parse(io.out())).toEqual({
      ok: false,
      plugin: null,
      tools: [],
      problems: [{ message: again.message }],
      tests: null,
    });
  });

  it('reports a file that does not load in one line, and as a problem with --json', async () => {
    const cwd = await project({ 'src/index.ts': "import './missing.js';\nexport default {};\n" });
    const error = await rejection(runTest({ cwd, io: createTestIo() }));
    expect(error.message).toMatch(/^Could not load src\/index\.ts: .*missing/);
    expect(error.message).not.toContain('\n');

    const io = createTestIo();
    await rejection(runTest({ cwd, io, json: true }));
    expect(JSON.parse(io.out())).toEqual({
      ok: false,
      plugin: null,
      tools: [],
      problems: [{ message: expect.stringMatching(/^Could not load src\/index\.ts: .*missing/) }],
      tests: null,
    });
  });

  it('fails on getToken() and auth.fetch() calls for providers the plugin does not declare, with file and line', async () => {
    // Issue 14: a plugin declaring only weather and gh asked for github and slack.
    const cwd = await project({
      'src/index.ts': `
import { definePlugin } from '@gateway/sdk';
import { peek } from './tools/peek.js';

export default definePlugin({
  id: 'weather',
  name: 'Weather',
  description: 'Forecasts.',
  authProviders: [
    { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
    { id: 'gh', type: 'oauth2', provider: 'github', scopes: [] },
  ],
  tools: [peek],
});
`,
      'src/tools/peek.ts': `import { defineTool } from '@gateway/sdk';
import { z } from 'zod';

export const peek = defineTool({
  path: 'weather.secrets.peek',
  name: 'Peek',
  description: 'Asks for more than it declares.',
  inputSchema: z.object({ which: z.string() }),
  async handler(ctx, { which }) {
    const key = await ctx.auth.getToken('weather');
    const gh = await ctx.auth.getToken("gh", { instance: 'Work' });
    const github = await ctx.auth.getToken('github');
    const slack = await ctx.auth.getToken(\`slack\`);
    const other = await ctx.auth.getToken(which);
    await ctx.auth.fetch('gh', 'https://api.github.com/user');
    await fetch('https://example.com/');
    await ctx.auth.fetch('linear', 'https://api.linear.app/graphql');
    return [key, gh, github, slack, other].length;
  },
});
`,
      // A test may ask on purpose, to see the refusal: not reported.
      'src/tools/peek.test.ts': "await ctx.auth.getToken('jira');\n",
    });
    const io = createTestIo();
    const error = await rejection(runTest({ cwd, io, runProcess: passing }));
    expect(error.exitCode).toBe(1);
    expect(error.message).toBe(
      'Plugin weather has 3 problems; fix them and run `gateway test` again',
    );
    const fix = (provider: string) =>
      `asks for a provider plugin weather does not declare; add { id: "${provider}", ... } to authProviders in definePlugin()`;
    expect(io.out().split('\n')).toEqual([
      '✗ plugin weather: 3 problems',
      `  - src/tools/peek.ts:12: getToken('github') ${fix('github')}`,
      `  - src/tools/peek.ts:13: getToken('slack') ${fix('slack')}`,
      // Issue 34: ctx.auth.fetch sends a provider's credential as getToken() vends it.
      `  - src/tools/peek.ts:17: auth.fetch('linear', ...) ${fix('linear')}`,
      '',
    ]);

    const json = createTestIo();
    await rejection(runTest({ cwd, io: json, json: true, runProcess: passing }));
    expect(JSON.parse(json.out())).toMatchObject({
      ok: false,
      plugin: 'weather',
      problems: [
        { file: 'src/tools/peek.ts', line: 12, provider: 'github' },
        { file: 'src/tools/peek.ts', line: 13, provider: 'slack' },
        { file: 'src/tools/peek.ts', line: 17, provider: 'linear' },
      ],
      tests: null,
    });

    // Declaring them is the fix.
    const declared = (id: string) =>
      `{ id: '${id}', type: 'api_key', provider: '${id}', scopes: [] }`;
    const entry = await readFile(join(cwd, 'src/index.ts'), 'utf8');
    await writeFiles(cwd, {
      'src/index.ts': entry.replace(
        'authProviders: [',
        `authProviders: [${declared('github')}, ${declared('slack')}, ${declared('linear')},`,
      ),
    });
    await expect(runTest({ cwd, io: createTestIo(), runTests: false })).resolves.toMatchObject({
      ok: true,
      problems: [],
    });
  });

  it('names the missing default export', async () => {
    const cwd = await project({ 'src/index.ts': 'export const plugin = 1;\n' });
    const error = await rejection(runTest({ cwd, io: createTestIo() }));
    expect(error.message).toBe(
      'src/index.ts has no default export; end it with `export default definePlugin({ ... })`',
    );
  });
});
