import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createTestIo, type TestIo } from '#test/output/test-io.js';
import { linkWorkspace, makeTempDir, writeFiles } from '#test/support/temp-project.js';
import { CliError } from '../../cli-error.js';
import { type DevReady, runDev } from './index.js';

const plugin = (paths: string[]) => `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  tools: ${JSON.stringify(paths)}.map((path) =>
    defineTool({
      path,
      name: 'Do Thing',
      description: 'Does a thing.',
      inputSchema: z.object({}),
      async handler() {
        return {};
      },
    }),
  ),
});
`;

const echoPlugin = `
import { definePlugin, defineTool } from '@gateway/sdk';
import { z } from 'zod';

export default definePlugin({
  id: 'demo',
  name: 'Demo',
  description: 'A demo plugin.',
  tools: [
    defineTool({
      path: 'demo.text.echo',
      name: 'Echo Text',
      description: 'Echoes text.',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ text: z.string() }),
      async handler(_ctx, { text }) {
        return { text };
      },
    }),
  ],
});
`;

interface McpServerConfig {
  type: string;
  url: string;
  headers: Record<string, string>;
}

async function readMcpConfig(dir: string): Promise<McpServerConfig> {
  const file = JSON.parse(await readFile(join(dir, '.gateway', 'mcp.json'), 'utf8')) as {
    mcpServers: Record<string, McpServerConfig>;
  };
  const server = file.mcpServers['gateway-dev'];
  if (server === undefined) throw new Error('mcp.json has no gateway-dev server');
  expect(server.type).toBe('http');
  return server;
}

/** Calls `demo.text.echo` the way an MCP client configured from `mcp.json` would. */
async function callEcho(config: McpServerConfig): Promise<unknown> {
  const client = new Client({ name: 'dev-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    }),
  );
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['demo.text.echo']);
    const result = await client.callTool({ name: 'demo.text.echo', arguments: { text: 'hello' } });
    return (result.structuredContent as { text?: unknown } | undefined)?.text;
  } finally {
    await client.close();
  }
}

async function project(source: string): Promise<string> {
  const dir = await makeTempDir();
  await writeFiles(dir, {
    'package.json': JSON.stringify({ name: 'demo', type: 'module' }),
    'src/index.ts': source,
  });
  await linkWorkspace(dir);
  return dir;
}

/** Starts `gateway dev` in `dir`; resolves once it serves, with a way to stop it. */
async function startDev(dir: string, io: TestIo = createTestIo()) {
  const controller = new AbortController();
  let ready!: (value: DevReady) => void;
  const readyPromise = new Promise<DevReady>((resolve) => {
    ready = resolve;
  });
  const running = runDev({ cwd: dir, io, port: 0, signal: controller.signal, onReady: ready });
  const info = await Promise.race([
    readyPromise,
    running.then(() => Promise.reject(new Error('stopped early'))),
  ]);
  return {
    info,
    io,
    stop: async () => {
      controller.abort();
      await running;
    },
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('gateway dev', () => {
  it('serves the plugin registered, reloads it on change, and keeps its registration', async () => {
    const dir = await project(plugin(['demo.items.list']));
    const dev = await startDev(dir);
    expect(dev.info.plugins).toEqual([{ id: 'demo', tools: ['demo.items.list'] }]);
    expect(await (await fetch(`${dev.info.url}/healthz`)).json()).toEqual({
      ok: true,
      database: 'up',
    });
    expect(dev.io.out()).toContain(`Gateway dev server ready at ${dev.info.url}`);
    // Issue 18: it said "1 tools".
    expect(dev.io.out()).toContain('plugin demo: 1 tool (demo.items.list)');
    expect(dev.io.out()).toContain(
      `sign in:       ${dev.info.url}/sign-in as dev@gateway.localhost (password in .gateway/dev-account.json)`,
    );
    expect((await fetch(`${dev.info.url}/sign-in`)).status).toBe(200);

    await writeFiles(dir, { 'src/index.ts': plugin(['demo.items.list', 'demo.items.get']) });
    await until(
      () => dev.io.out().includes('reloaded demo (src/index.ts changed): 2 tools'),
      'the reload',
    );

    // A broken edit keeps the previous version running and says why, naming the plugin.
    await writeFiles(dir, { 'src/index.ts': plugin(['elsewhere.items.list']) });
    await until(() => dev.io.err().includes('reload of demo failed'), 'the failed reload');
    expect(dev.io.err()).toContain('elsewhere.items.list');
    await dev.stop();
    expect(dev.io.out()).toContain('Gateway dev server stopped.');

    // The data dir keeps the registration for the next run, which says why it cannot mount a
    // plugin whose tools left the namespace.
    const broken = await runDev({ cwd: dir, io: createTestIo(), port: 0 }).catch((e: unknown) => e);
    expect((broken as Error).message).toMatch(/^Could not register demo: .*elsewhere\.items\.list/);

    await writeFiles(dir, { 'src/index.ts': plugin(['demo.items.get']) });
    const again = await startDev(dir);
    expect(again.info.plugins).toEqual([{ id: 'demo', tools: ['demo.items.get'] }]);
    await again.stop();
  });

  // Issue 18: after saves that replace the file (`sed -i`, vim, IDEs) edits stopped being applied,
  // silently, and later ordinary writes were ignored too.
  it('reloads on atomic saves, renames and new folders, ignoring editor files, one line each', async () => {
    const dir = await project(plugin(['demo.items.list']));
    const dev = await startDev(dir);
    const entry = join(dir, 'src', 'index.ts');
    const reloads = () =>
      dev.io
        .out()
        .split('\n')
        .filter((line) => line.includes('reloaded demo'));
    const reloaded = async (count: number, what: string) => {
      await until(() => reloads().length >= count, what);
      return reloads()[count - 1];
    };
    /** Writes a temporary file beside the target and renames it over, as `sed -i` does. */
    const atomicSave = async (
      file: string,
      content: string,
      temp = `${file}.tmp-${Date.now()}`,
    ) => {
      await writeFile(temp, content);
      await rename(temp, file);
    };

    await atomicSave(
      entry,
      plugin(['demo.items.list', 'demo.items.a']),
      join(dir, 'src', 'sedAb12Cd'),
    );
    expect(await reloaded(1, 'a reload after a sed -i save')).toBe(
      '↻ reloaded demo (src/index.ts changed): 2 tools',
    );
    // The next save to the replaced file is seen too: the old code watched the gone inode.
    await atomicSave(entry, plugin(['demo.items.list', 'demo.items.a', 'demo.items.b']));
    expect(await reloaded(2, 'a second atomic save')).toContain('3 tools');
    await writeFile(entry, plugin(['demo.items.list']));
    expect(await reloaded(3, 'an ordinary write after atomic saves')).toBe(
      '↻ reloaded demo (src/index.ts changed): 1 tool',
    );

    // Vim: swap file, the 4913 probe, a backup by rename, the new file written, the backup gone.
    await writeFile(join(dir, 'src', '.index.ts.swp'), 'swap');
    await writeFile(join(dir, 'src', '4913'), '');
    await rm(join(dir, 'src', '4913'));
    await rename(entry, `${entry}~`);
    await writeFile(entry, plugin(['demo.items.list', 'demo.items.vim']));
    await rm(`${entry}~`);
    expect(await reloaded(4, 'a vim save')).toBe('↻ reloaded demo (src/index.ts changed): 2 tools');
    // Editor files alone change nothing.
    await writeFile(join(dir, 'src', '.index.ts.swp'), 'swap again');
    await writeFile(join(dir, 'src', '.#index.ts'), 'emacs lock');
    await writeFile(join(dir, 'src', 'index.ts~'), 'backup');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(reloads()).toHaveLength(4);

    // A folder made after start is watched, and a rename in it is a change.
    await writeFiles(dir, { 'src/lib/paths.ts': `export const extra = 'demo.items.lib';\n` });
    await writeFile(
      entry,
      `import { extra } from './lib/paths.js';\n${plugin(['demo.items.list']).replace(`["demo.items.list"]`, `["demo.items.list", extra]`)}`,
    );
    await reloaded(5, 'a reload with a new folder');
    await writeFile(
      join(dir, 'src', 'lib', 'other.ts'),
      `export const extra = 'demo.items.renamed';\n`,
    );
    await rename(join(dir, 'src', 'lib', 'other.ts'), join(dir, 'src', 'lib', 'paths.ts'));
    expect(await reloaded(6, 'a rename in the new folder')).toMatch(
      /^↻ reloaded demo \(src\/lib\/(other|paths)\.ts(, src\/lib\/(other|paths)\.ts)? changed\): 2 tools$/,
    );
    expect(dev.info.plugins).toBeDefined();
    const list = await fetch(`${dev.info.url}/healthz`);
    expect(list.status).toBe(200);

    // A save that does not load says so, names the plugin, and the next good save reloads.
    await atomicSave(entry, 'export default {', join(dir, 'src', 'sedXy34Zw'));
    await until(() => dev.io.err().includes('reload of demo failed'), 'the failed reload');
    expect(dev.io.err()).toMatch(
      // A late event of the rename above may join this batch: src/lib/paths.ts listed too.
      /^error: reload of demo failed \((src\/lib\/paths\.ts, )?src\/index\.ts changed\), the previous version keeps running: /m,
    );
    // The syntax error is said once, on that one line: not again by the loader, nor as a stack.
    expect(dev.io.err().match(/but found end of file/g)).toHaveLength(1);
    expect(dev.io.err().trimEnd().split('\n')).toHaveLength(1);
    await atomicSave(entry, plugin(['demo.items.list']));
    expect(await reloaded(7, 'a reload after a failed one')).toContain('1 tool');
    expect(dev.io.err()).not.toMatch(/swp|4913|\.#|~/);
    await dev.stop();
  });

  it('keeps serving when its log file can no longer be written, saying so once', async () => {
    const dir = await project(echoPlugin);
    const dev = await startDev(dir);
    try {
      const logFile = join(dir, '.gateway', 'gateway.log');
      // A folder where the log file was: every append fails (EISDIR).
      await rm(logFile);
      await mkdir(logFile);
      const config = await readMcpConfig(dir);
      expect(await callEcho(config)).toBe('hello');
      expect(await callEcho(config)).toBe('hello');
      await until(() => dev.io.err().includes('cannot write'), 'the log file warning');
      const warnings = dev.io
        .err()
        .split('\n')
        .filter((line) => line.includes('cannot write'));
      expect(warnings).toEqual([
        expect.stringMatching(
          /^gateway dev: cannot write .*gateway\.log \(EISDIR.*\); warnings and errors still show here\. Restart `gateway dev` to log to the file again\.$/,
        ),
      ]);
    } finally {
      await dev.stop();
    }
  });

  // Issue 31: stdio upstreams from the config file run under `gateway dev` too, and one that
  // cannot start shows as degraded, with its exit code and stderr, on the terminal.
  it('runs the stdio upstreams of the config file, saying why one cannot start', async () => {
    const dir = await project(plugin(['demo.items.list']));
    await writeFiles(dir, {
      'echo-server.cjs': `let buffer = '';
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === undefined) continue;
    send({ jsonrpc: '2.0', id: message.id, result: message.method === 'initialize'
      ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1' } }
      : { tools: [{ name: 'say', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] } });
  }
});
`,
      'gateway.config.mjs': `export default {
  upstreams: [
    { id: 'echo', namespace: 'echo', command: ${JSON.stringify(process.execPath)}, args: ['echo-server.cjs'] },
    { id: 'broken', namespace: 'broken', command: ${JSON.stringify(process.execPath)}, args: ['-e', "process.stderr.write('cannot open the database'); process.exit(3)"], startTimeoutMs: 5000 },
  ],
};
`,
    });
    const dev = await startDev(dir);
    expect(dev.info.upstreams).toEqual([
      { id: 'echo', tools: ['echo.say'], state: 'ok', lastError: null },
      {
        id: 'broken',
        tools: [],
        state: 'degraded',
        lastError: expect.stringMatching(/exited with code 3.*cannot open the database/),
      },
    ]);
    expect(dev.io.out()).toContain('  upstream echo (stdio): 1 tool (echo.say)\n');
    expect(dev.io.out()).toMatch(
      / {2}upstream broken \(stdio\): degraded, .*exited with code 3.*cannot open the database.*; 0 tools, started again on the next call\n/,
    );
    expect(dev.io.err()).toMatch(
      /\[warn\] upstream process not started \(source broken\): .*exited with code 3.*cannot open the database/,
    );
    // Listing it says the same reason, not a bare "it failed".
    expect(dev.io.err()).toMatch(
      /\[warn\] upstream tool list not refreshed \(source broken\): it .*exited with code 3/,
    );
    expect(dev.io.err()).not.toContain('it failed');
    // The echo upstream's tool is served to the dev account's MCP client as written.
    const config = await readMcpConfig(dir);
    const client = new Client({ name: 'dev-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['demo.items.list', 'echo.say']);
    expect(tools.find((tool) => tool.name === 'echo.say')?.annotations).toEqual({
      readOnlyHint: true,
    });
    await client.close();
    await dev.stop();
  });

  it('opens the web app when asked, and not by default off a terminal', async () => {
    const dir = await project(plugin(['demo.items.list']));
    const opened: string[] = [];
    const controller = new AbortController();
    await runDev({
      cwd: dir,
      io: createTestIo(),
      port: 0,
      open: true,
      openBrowser: async (url) => {
        opened.push(url);
        controller.abort();
      },
      signal: controller.signal,
    });
    expect(opened).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/)]);
  });

  it('refuses an invalid plugin, listing every problem', async () => {
    const dir = await project(plugin(['Bad Path']));
    const error = await runDev({ cwd: dir, io: createTestIo(), port: 0 }).catch((e: unknown) => e);
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('is not a valid plugin');
    expect((error as Error).message).toContain('field path');
  });

  it('says which port is taken and how to choose another', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const dir = await project(plugin(['demo.items.list']));
      const error = await runDev({ cwd: dir, io: createTestIo(), port }).catch((e: unknown) => e);
      expect((error as Error).message).toBe(
        `Port ${port} is in use; stop the other process or pass --port <port>`,
      );
    } finally {
      blocker.close();
    }
  });

  it('shows a spinner on stderr while it starts, when stderr is a terminal', async () => {
    const dir = await project(plugin(['demo.items.list']));
    const dev = await startDev(dir, createTestIo({ stderrTTY: true, spinnerDelayMs: 0 }));
    await dev.stop();
    expect(dev.io.spun()).toContain('Starting the local gateway');
    expect(dev.io.out()).not.toContain('Starting the local gateway');
  });

  it('keeps its secrets in the data dir, readable only by the owner', async () => {
    const dir = await project(plugin(['demo.items.list']));
    const dev = await startDev(dir);
    await dev.stop();
    for (const file of ['dev-secrets.json', 'dev-account.json', 'mcp.json']) {
      expect((await stat(join(dir, '.gateway', file))).mode & 0o777, file).toBe(0o600);
    }
  });

  it('gives a fresh data dir a dev account whose MCP client configuration works as written', async () => {
    const dir = await project(echoPlugin);
    const first = await startDev(dir);
    const config = await readMcpConfig(dir);
    expect(config.url).toBe(`${first.info.url}/mcp`);
    expect(await callEcho(config)).toBe('hello');
    // The terminal gets where the secrets are, never the secrets themselves.
    const { password, mcpToken } = JSON.parse(
      await readFile(join(dir, '.gateway', 'dev-account.json'), 'utf8'),
    ) as { password: string; mcpToken: string };
    expect(first.io.out()).not.toContain(password);
    expect(first.io.out()).not.toContain(mcpToken);
    expect(first.io.out()).toContain(
      'try a tool:    npx @modelcontextprotocol/inspector --cli --config .gateway/mcp.json --method tools/list',
    );
    await first.stop();

    // The next run, on another port, keeps the account and token and rewrites the address.
    const second = await startDev(dir);
    const again = await readMcpConfig(dir);
    expect(again.url).toBe(`${second.info.url}/mcp`);
    expect(again.headers).toEqual(config.headers);
    expect(await callEcho(again)).toBe('hello');

    // A deleted endpoint is made again; the old token stops working.
    const account = JSON.parse(
      await readFile(join(dir, '.gateway', 'dev-account.json'), 'utf8'),
    ) as { userId: string };
    const secrets = JSON.parse(
      await readFile(join(dir, '.gateway', 'dev-secrets.json'), 'utf8'),
    ) as { serviceApiSecret: string };
    const auth = { authorization: `Bearer ${secrets.serviceApiSecret}` };
    const listUrl = `${second.info.url}/api/connections/mcp-endpoints?userId=${account.userId}`;
    const { endpoints } = (await (await fetch(listUrl, { headers: auth })).json()) as {
      endpoints: { id: string }[];
    };
    for (const endpoint of endpoints) {
      const url = `${second.info.url}/api/connections/mcp-endpoints/${endpoint.id}?userId=${account.userId}`;
      expect((await fetch(url, { method: 'DELETE', headers: auth })).status).toBe(200);
    }
    await second.stop();
    const third = await startDev(dir);
    const renewed = await readMcpConfig(dir);
    expect(renewed.headers).not.toEqual(config.headers);
    expect(await callEcho(renewed)).toBe('hello');
    await third.stop();
  });

  it('makes no dev account where people already signed up', async () => {
    const dir = await project(echoPlugin);
    const first = await startDev(dir);
    await first.stop();
    const { rm } = await import('node:fs/promises');
    await rm(join(dir, '.gateway', 'dev-account.json'));
    const second = await startDev(dir);
    expect(second.info.devAccess).toBeUndefined();
    expect(second.io.out()).toContain(`sign up:       ${second.info.url}/sign-up`);
    await second.stop();
  });
});
