/**
 * Issue 31: every tool used to be served as `{ title, readOnlyHint: !destructive, destructiveHint }`,
 * so write tools of real servers reached clients as read-only. Through the gateway, with the SDK
 * v1 and v2 clients, each tool of three npm servers now has exactly the annotations a direct
 * `tools/list` gives.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectV1, connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { EVERYTHING_BIN } from '#test/upstream/everything.js';

const require = createRequire(import.meta.url);
const FILESYSTEM_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const MEMORY_BIN = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

interface Upstream {
  id: string;
  args: string[];
  env?: Record<string, string>;
}

/** Each tool's annotations as the server itself lists them (null when it gives none). */
async function direct(upstream: Upstream): Promise<Record<string, unknown>> {
  // As the gateway connects: server-everything lists some tools only to such a client.
  const client = new Client(
    { name: 'direct', version: '1' },
    { capabilities: { sampling: {}, elicitation: { form: {}, url: {} } } },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: upstream.args,
      env: upstream.env ?? {},
      stderr: 'ignore',
    }),
  );
  try {
    const { tools } = await client.listTools();
    return Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations ?? null]));
  } finally {
    await client.close();
  }
}

describe('annotations of real upstreams', () => {
  it('reach v1 and v2 clients exactly as a direct tools/list gives them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-annotations-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const upstreams: Upstream[] = [
      { id: 'ev', args: [EVERYTHING_BIN, 'stdio'] },
      { id: 'fs', args: [FILESYSTEM_BIN, dir] },
      { id: 'mem', args: [MEMORY_BIN], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    ];
    const config = join(dir, 'gateway.config.mjs');
    await writeFile(
      config,
      `export default { upstreams: ${JSON.stringify(
        upstreams.map((upstream) => ({
          id: upstream.id,
          namespace: upstream.id,
          command: process.execPath,
          args: upstream.args,
          env: upstream.env ?? {},
        })),
      )} };\n`,
    );
    const gw = await startMcpGateway({ configFile: config });
    const alice = await gw.user({ admin: true });
    const served = async (client: {
      listTools(): Promise<{ tools: { name: string; annotations?: unknown }[] }>;
    }) => (await client.listTools()).tools;
    const v2 = await served(await connectV2(gw.url, alice.mcpToken));
    const v1 = await served((await connectV1(gw.url, alice.mcpToken)).client);
    for (const upstream of upstreams) {
      const expected = await direct(upstream);
      expect(Object.keys(expected).length).toBeGreaterThan(3);
      for (const tools of [v2, v1]) {
        // The registry list maps served paths to upstream names where they differ.
        const listed = await gw.gateway.request('GET', '/api/registry/sources', { as: 'service' });
        const { sources } = (await listed.json()) as {
          sources: {
            id: string;
            tools: string[];
            upstream?: { mappedNames: Record<string, string> };
          }[];
        };
        const source = sources.find((entry) => entry.id === upstream.id);
        const nameOf = (path: string) =>
          source?.upstream?.mappedNames[path] ?? path.slice(upstream.id.length + 1);
        const got = Object.fromEntries(
          tools
            .filter((tool) => tool.name.startsWith(`${upstream.id}.`))
            .map((tool) => [nameOf(tool.name), tool.annotations ?? null]),
        );
        expect(got, upstream.id).toEqual(expected);
      }
    }
  }, 120_000);
});
