import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { linkWorkspace, makeTempDir, writeFiles } from '#test/support/temp-project.js';
import { CliError } from '../../cli-error.js';
import { type DevReady, runDev } from '../dev/index.js';
import { runTest, type TestReport } from './index.js';

// Issue 34: nine mistakes took four runs of `gateway test` and two of `gateway dev`. Ten of
// different kinds, each something the gateway refuses; one run must report them all.
const tenMistakes = `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

const base = {
  description: 'Does a thing.',
  inputSchema: z.object({}),
  async handler() {
    return {};
  },
};

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: '', // 1: empty description
  authProviders: [
    { id: 'weather', type: 'oauth', provider: 'weather', scopes: [] }, // 2: unknown type
  ],
  tools: [
    defineTool({ ...base, path: 'demo.items.list', name: 'list items' }), // 3: not Title Case
    defineTool({ ...base, path: 'other.items.get', name: 'Get Item' }), // 4: outside namespace
    defineTool({ ...base, path: 'demo.items.list', name: 'List Again' }), // 5: duplicate path
    defineTool({ ...base, path: 'demo.items.pick', name: 'Pick Item', authProvider: 'githb' }), // 6: undeclared provider
    defineTool({
      ...base,
      path: 'demo.items.since',
      name: 'Items Since',
      inputSchema: z.object({ since: z.date() }), // 7: no JSON Schema for an input
    }),
    defineTool({
      ...base,
      path: 'demo.items.count',
      name: 'Count Items',
      outputSchema: z.object({ total: z.bigint() }), // 8: no JSON Schema for an output
    }),
    defineTool({
      ...base,
      path: 'demo.items.delete',
      name: 'Delete Item',
      destructive: 'yes', // 9: not a boolean
    }),
    defineTool({
      ...base,
      path: 'demo.items.peek',
      name: 'Peek Item',
      async handler(ctx) {
        return { token: (await ctx.auth.getToken('github')).length }; // 10: undeclared getToken
      },
    }),
  ],
});
`;

// A plugin with the schemas plugins commonly use, all of which the gateway can serve.
const acceptedPlugin = `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  authProviders: [{ id: 'weather', type: 'api_key', provider: 'weather', scopes: [] }],
  tools: [
    defineTool({
      path: 'demo.items.search',
      name: 'Search Items',
      description: 'Searches items.',
      inputSchema: z.object({
        query: z.string().min(1),
        since: z.iso.datetime().optional(),
        limit: z.number().int().min(1).max(50).default(10),
        kind: z.enum(['a', 'b']).optional(),
        tags: z.array(z.string()).optional(),
        name: z.string().transform((text) => text.trim()).optional(),
      }),
      outputSchema: z.object({
        items: z.array(z.object({ id: z.string(), at: z.iso.datetime().nullable() })),
        next: z.string().optional(),
      }),
      authProvider: 'weather',
      async handler(_ctx, { query }) {
        return { items: [{ id: query, at: null }] };
      },
    }),
    defineTool({
      path: 'demo.items.remove',
      name: 'Remove Item',
      description: 'Removes an item.',
      inputSchema: z.object({ id: z.string() }),
      destructive: true,
      async handler() {
        return 'removed';
      },
    }),
  ],
});
`;

async function project(source: string): Promise<string> {
  const dir = await makeTempDir();
  await writeFiles(dir, {
    'package.json': JSON.stringify({ name: 'demo', type: 'module' }),
    'src/index.ts': source,
  });
  await linkWorkspace(dir);
  return dir;
}

describe('gateway test is the whole gate', () => {
  it('reports ten mistakes of ten kinds in one run, with --json too', async () => {
    const cwd = await project(tenMistakes);
    const io = createTestIo();
    const error = await runTest({ cwd, io, runTests: false }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(CliError.isInstance(error) && error.message).toBe(
      'Plugin demo has 10 problems; fix them and run `gateway test` again',
    );
    const fix = 'asks for a provider plugin demo does not declare';
    const line =
      tenMistakes.split('\n').findIndex((text) => text.includes("getToken('github')")) + 1;
    expect(io.out().split('\n')).toEqual([
      '✗ plugin demo: 10 problems',
      '  - plugin demo, field description: must not be empty',
      '  - plugin demo, field authProviders[0].type: must be "oauth2" or "api_key"',
      '  - plugin demo, tool demo.items.list, field name: must be in Title Case, e.g. "List Items"',
      '  - plugin demo, tool demo.items.list, field path: is used by another tool of this plugin',
      '  - plugin demo, tool demo.items.pick, field authProvider: names no provider of this plugin (declared: weather)',
      '  - plugin demo, tool demo.items.delete, field destructive: must be true or false',
      '  - plugin demo, tool other.items.get, field path: must start with "demo." (the plugin id, which `gateway dev` and `gateway register` use as namespace), e.g. "demo.items.get"',
      '  - plugin demo, tool demo.items.since, field inputSchema: cannot be represented as JSON Schema (Date cannot be represented in JSON Schema); use a string, e.g. z.iso.datetime()',
      '  - plugin demo, tool demo.items.count, field outputSchema: cannot be represented as JSON Schema (BigInt cannot be represented in JSON Schema); use a number or a string, e.g. z.number().int() or z.string()',
      `  - src/index.ts:${line}: getToken('github') ${fix}; add { id: "github", ... } to authProviders in definePlugin()`,
      '',
    ]);

    const json = createTestIo();
    await runTest({ cwd, io: json, json: true, runTests: false }).catch(() => undefined);
    const report: TestReport = JSON.parse(json.out());
    expect(report.ok).toBe(false);
    expect(report.tools).toContain('demo.items.since');
    expect(report.problems).toHaveLength(10);
    expect(report.problems).toContainEqual({
      plugin: 'demo',
      tool: 'demo.items.count',
      field: 'outputSchema',
      message: expect.stringMatching(/^cannot be represented as JSON Schema \(BigInt/),
    });
    expect(report.problems).toContainEqual(
      expect.objectContaining({ file: 'src/index.ts', line, provider: 'github' }),
    );
  });

  it('refuses the plugin id gateway, whose namespace gateway dev cannot mount', async () => {
    const cwd = await project(
      acceptedPlugin.replace("id: 'demo'", "id: 'gateway'").replaceAll("'demo.", "'gateway."),
    );
    const io = createTestIo();
    await runTest({ cwd, io, json: true, runTests: false }).catch(() => undefined);
    const report: TestReport = JSON.parse(io.out());
    expect(report.problems).toEqual([
      {
        plugin: 'gateway',
        field: 'id',
        message: expect.stringContaining('"gateway" is reserved for the gateway\'s own tools'),
      },
    ]);
  });

  it('accepts only what gateway dev then mounts and serves', async () => {
    const cwd = await project(acceptedPlugin);
    await expect(runTest({ cwd, io: createTestIo(), runTests: false })).resolves.toMatchObject({
      ok: true,
      problems: [],
    });

    // The same plugin through `gateway dev`'s loading path, into a real gateway, over MCP.
    const controller = new AbortController();
    let ready!: (value: DevReady) => void;
    const readyPromise = new Promise<DevReady>((resolve) => {
      ready = resolve;
    });
    const running = runDev({
      cwd,
      io: createTestIo(),
      port: 0,
      signal: controller.signal,
      onReady: ready,
    });
    try {
      const info = await Promise.race([
        readyPromise,
        running.then(() => Promise.reject(new Error('gateway dev stopped early'))),
      ]);
      expect(info.plugins).toEqual([
        { id: 'demo', tools: ['demo.items.remove', 'demo.items.search'] },
      ]);
      const file = JSON.parse(await readFile(join(cwd, '.gateway', 'mcp.json'), 'utf8')) as {
        mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
      };
      const config = file.mcpServers['gateway-dev'];
      if (config === undefined) throw new Error('mcp.json has no gateway-dev server');
      const client = new Client({ name: 'whole-gate-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers },
        }),
      );
      try {
        const { tools } = await client.listTools();
        const search = tools.find((tool) => tool.name === 'demo.items.search');
        expect(search?.inputSchema.properties).toHaveProperty('since');
        expect(search?.outputSchema?.properties).toHaveProperty('items');
      } finally {
        await client.close();
      }
    } finally {
      controller.abort();
      await running;
    }
  }, 60_000);
});
