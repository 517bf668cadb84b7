import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../cli-error.js';
import { createTestIo, type TestIo } from '../../output/test-io.js';
import { linkWorkspace, makeTempDir, writeFiles } from '../../test-support/temp-project.js';
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
    expect(await (await fetch(`${dev.info.url}/healthz`)).json()).toEqual({ ok: true });
    expect(dev.io.out()).toContain(`Gateway dev server ready at ${dev.info.url}`);
    expect(dev.io.out()).toContain('plugin demo: 1 tools (demo.items.list)');
    expect(dev.io.out()).toContain(`sign up:       ${dev.info.url}/sign-up`);
    expect((await fetch(`${dev.info.url}/sign-up`)).status).toBe(200);

    await writeFiles(dir, { 'src/index.ts': plugin(['demo.items.list', 'demo.items.get']) });
    await until(() => dev.io.out().includes('reloaded demo: 2 tools'), 'the reload');

    // A broken edit keeps the previous version running and says why.
    await writeFiles(dir, { 'src/index.ts': plugin(['elsewhere.items.list']) });
    await until(() => dev.io.err().includes('reload of . failed'), 'the failed reload');
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

  it('keeps its secrets in the data dir, readable only by the owner', async () => {
    const dir = await project(plugin(['demo.items.list']));
    const dev = await startDev(dir);
    await dev.stop();
    const { stat } = await import('node:fs/promises');
    const mode = (await stat(join(dir, '.gateway', 'dev-secrets.json'))).mode & 0o777;
    expect(mode).toBe(0o600);
  });
});
