/**
 * Issue 31: the stdio example of docs/federation.md, `npx -y @modelcontextprotocol/server-everything
 * stdio`, died at the old 15 s connect limit while npx was still resolving. It now has
 * `startTimeoutMs` (60 s by default). CI has no network, so npx resolves the package from this
 * package's own install (`cwd`): the same command form, run offline.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Processes whose environment carries `marker`: what npx started for this test. */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (environ.includes(marker)) found.push(Number(pid));
  }
  return found;
}

describe('the npx stdio example of docs/federation.md', () => {
  it('starts, serves its tools, and leaves no process behind when the gateway stops', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-npx-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const marker = `GATEWAY_NPX_TEST=${crypto.randomUUID()}`;
    const config = join(dir, 'gateway.config.mjs');
    await writeFile(
      config,
      `export default { upstreams: [{ id: 'everything', namespace: 'everything', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything', 'stdio'], cwd: ${JSON.stringify(PACKAGE_DIR)}, env: { ${JSON.stringify(marker.split('=')[0])}: ${JSON.stringify(marker.split('=')[1])} }, approval: 'listed' }] };\n`,
    );
    const gw = await startMcpGateway({ configFile: config });
    const alice = await gw.user({ admin: true });
    const client = await connectV2(gw.url, alice.mcpToken);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('everything.echo');
    const answer = await client.callTool({ name: 'everything.echo', arguments: { message: 'hi' } });
    expect(JSON.stringify(answer.content)).toContain('hi');
    expect((await processesWith(marker)).length).toBeGreaterThan(0);
    await gw.gateway.stop();
    await expect.poll(() => processesWith(marker), { timeout: 15_000 }).toEqual([]);
  }, 180_000);
});
