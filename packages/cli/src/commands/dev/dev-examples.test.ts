import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from '@gateway/sdk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { makeTempDir } from '#test/support/temp-project.js';
import { plural } from '../../output/plural.js';
import { type DevReady, runDev } from './index.js';
import { findPluginSources } from './plugin-sources.js';

// `gateway dev` at the repository root is what the README's `pnpm start` runs. With no plugin of
// its own there, it loads every plugin under examples/ (their tsconfig maps @gateway/sdk to the
// sdk's sources, so no build is needed), registers each and serves them; the test fixtures
// (examples/conformance) only with --fixtures (issue 18: their 14 tools came first).

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../..');

/** Every example plugin but the fixtures, with its tool paths, imported directly. */
async function examplePlugins(): Promise<{ id: string; tools: string[] }[]> {
  const names = (await readdir(join(repoRoot, 'examples'))).sort();
  const plugins = [];
  for (const name of names) {
    if (name === 'conformance') continue;
    const module = (await import(join(repoRoot, 'examples', name, 'src/index.ts'))) as {
      default: Plugin;
    };
    plugins.push({ id: module.default.id, tools: module.default.tools.map((tool) => tool.path) });
  }
  return plugins;
}

describe('gateway dev at the repository root (pnpm start)', () => {
  it('registers every example plugin and serves their tools over MCP', {
    timeout: 120_000,
  }, async () => {
    const expected = await examplePlugins();
    expect(expected.length).toBeGreaterThanOrEqual(4);
    // Only with --fixtures: the conformance suite's tools are no example to try.
    const withFixtures = await findPluginSources(repoRoot, { fixtures: true });
    expect(withFixtures.map((source) => basename(source.dir))).toContain('conformance');
    const plain = await findPluginSources(repoRoot);
    expect(plain.map((source) => basename(source.dir))).not.toContain('conformance');
    const dataDir = await makeTempDir('gateway-dev-root-');
    const controller = new AbortController();
    let ready!: (value: DevReady) => void;
    const started = new Promise<DevReady>((done) => {
      ready = done;
    });
    const io = createTestIo();
    const running = runDev({
      cwd: repoRoot,
      io,
      port: 0,
      dataDir,
      open: false,
      signal: controller.signal,
      onReady: ready,
    });
    try {
      const info = await Promise.race([
        started,
        running.then(() => Promise.reject(new Error('gateway dev stopped before it was ready'))),
      ]);
      expect([...info.plugins].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
        expected.map((plugin) => ({ id: plugin.id, tools: [...plugin.tools].sort() })),
      );
      for (const plugin of expected) {
        expect(io.out()).toContain(`plugin ${plugin.id}: ${plural(plugin.tools.length, 'tool')}`);
      }
      expect(io.out()).toContain(`Watching ${expected.length} plugins for changes.`);

      // The dev account is the admin, so its MCP endpoint offers every example tool.
      const config = JSON.parse(await readFile(info.devAccess!.mcpConfigFile, 'utf8')) as {
        mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
      };
      const server = config.mcpServers['gateway-dev']!;
      const client = new Client({ name: 'dev-root-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: server.headers },
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(
          expected.flatMap((plugin) => plugin.tools).sort(),
        );
        // A tool that needs no credential answers: the notes example lists its (empty) notes.
        const listed = await client.callTool({ name: 'notes.notes.list', arguments: {} });
        expect(listed.isError ?? false).toBe(false);
      } finally {
        await client.close();
      }
    } finally {
      controller.abort();
      await running;
    }
  });
});
