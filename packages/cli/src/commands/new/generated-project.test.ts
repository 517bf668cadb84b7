import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { linkWorkspace, makeTempDir } from '#test/support/temp-project.js';
import { main } from '../../main.js';
import { runProcess } from '../../process/run-process.js';
import { findPackageBin } from '../../project/find-bin.js';
import { runBuild } from '../build/index.js';
import { type DevReady, runDev } from '../dev/index.js';
import { runTest } from '../test/index.js';
import { runNew } from './index.js';
import { templateNames } from './template-names.js';

// The promise of `gateway new`: the project works as generated. Each template is written to a temp
// folder whose @gateway/sdk is this workspace's source (the pack check in CI installs the real
// tarballs), then type-checked, validated and tested with `gateway test`.
//
// This file is the quick local copy of scripts/pack-check-projects.mjs, which runs the same
// checks on every template installed from the packed tarballs (type check, `gateway test --json`,
// `gateway build` and its dist/, `gateway dev --check`, the three commands to an MCP client; the
// tool call in scripts/newcomer.sh's try-plugin). .ci/run runs that pack check after its test step
// and sets GATEWAY_PACK_CHECK_FOLLOWS=1 for the tests, so CI does not run them twice.
const packCheckFollows = process.env.GATEWAY_PACK_CHECK_FOLLOWS === '1';

describe.skipIf(packCheckFollows).each(templateNames)('a project generated from %s', (template) => {
  it('type-checks, validates and passes its own tests', { timeout: 120_000 }, async () => {
    const cwd = await makeTempDir();
    const { dir } = await runNew({
      name: `@acme/${template}-tools`,
      template,
      install: false,
      cwd,
      io: createTestIo(),
    });
    await linkWorkspace(dir, ['vitest', 'typescript', '@types/node', 'tsup']);

    const tsc = await findPackageBin(dir, 'typescript', 'tsc');
    let tscOutput = '';
    const collect = (text: string) => {
      tscOutput += text;
    };
    const typecheck = await runProcess(process.execPath, [tsc!, '--noEmit', '-p', '.'], {
      cwd: dir,
      env: process.env,
      onStdout: collect,
      onStderr: collect,
    });
    expect(tscOutput).toBe('');
    expect(typecheck.exitCode).toBe(0);

    const io = createTestIo();
    const report = await runTest({ cwd: dir, io, json: true });
    const id = `${template.replace('-', '_')}_tools`;
    expect(report).toEqual({
      ok: true,
      plugin: id,
      tools: [expect.stringMatching(new RegExp(`^${id}\\.`))],
      problems: [],
      tests: { passed: true },
    });
    expect(io.err()).toMatch(/Tests\s+\d+ passed/);
  });
});

describe.skipIf(packCheckFollows)('gateway build on a generated project', () => {
  it('writes dist/index.js and its types, which mount in a gateway', {
    timeout: 120_000,
  }, async () => {
    const cwd = await makeTempDir();
    const { dir } = await runNew({
      name: 'echo',
      template: 'blank',
      install: false,
      cwd,
      io: createTestIo(),
    });
    await linkWorkspace(dir, ['tsup', 'typescript', '@types/node']);
    const io = createTestIo();
    await runBuild({ cwd: dir, io });
    expect(io.out()).toContain('✓ built dist/');
    const built = await readFile(join(dir, 'dist/index.js'), 'utf8');
    // Dependencies stay external: the gateway that loads the plugin provides them.
    expect(built).toMatch(/from ["']@gateway\/sdk["']/);
    expect(built).toContain('echo.messages.echo');
    await expect(readFile(join(dir, 'dist/index.d.ts'), 'utf8')).resolves.toContain('echoMessage');

    // The workflow's mount check: the build mounted in a real gateway, its tool listed through MCP.
    const mounted = createTestIo();
    expect(await main(['dev', '--check'], mounted, dir, { keychain: null })).toBe(0);
    expect(mounted.out()).toBe(
      '✓ dist/index.js mounts as plugin echo: 1 tool listed through MCP\n  echo.messages.echo\n',
    );
  });
});

// The README's promise: from `gateway new` to a tool answering in an MCP client in three commands
// (`gateway new`, `gateway dev`, then the client), with no sign-up in between.
describe.skipIf(packCheckFollows)('from gateway new to an MCP client', () => {
  it('answers the generated tool through the configuration gateway dev writes', {
    timeout: 120_000,
  }, async () => {
    const cwd = await makeTempDir();
    const { dir } = await runNew({
      name: 'echo',
      template: 'blank',
      install: false,
      cwd,
      io: createTestIo(),
    });
    await linkWorkspace(dir);

    const controller = new AbortController();
    let ready!: (value: DevReady) => void;
    const started = new Promise<DevReady>((resolve) => {
      ready = resolve;
    });
    const running = runDev({
      cwd: dir,
      io: createTestIo(),
      port: 0,
      signal: controller.signal,
      onReady: ready,
    });
    try {
      const { devAccess } = await started;
      expect(devAccess).toBeDefined();
      const config = JSON.parse(await readFile(devAccess!.mcpConfigFile, 'utf8')) as {
        mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
      };
      const server = config.mcpServers['gateway-dev']!;
      const client = new Client({ name: 'quickstart-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), {
          requestInit: { headers: server.headers },
        }),
      );
      const result = await client.callTool({
        name: 'echo.messages.echo',
        arguments: { message: 'hi', shout: true },
      });
      expect(result.structuredContent).toEqual({ message: 'HI' });
      await client.close();
    } finally {
      controller.abort();
      await running;
    }
  });
});
