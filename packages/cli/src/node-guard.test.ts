import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 18: on Node 20 `pnpm start` ended in a silent segfault (better-sqlite3) and the tests ran
// for minutes; the guard stops every entry point at once with one line.
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const guardFile = resolve(root, 'packages/sdk/bin/node-guard.cjs');
const binFile = resolve(here, '../bin/gateway.cjs');
const serverBinFile = resolve(root, 'packages/server/bin/gateway-server.cjs');
const guard = createRequire(import.meta.url)(guardFile) as {
  check(version: string, retry: string, execPath?: string): string | null;
};

/** The first `node` on PATH that is not this project's own Node 24 under .tools, if any. */
function systemNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    if (!dir.includes('.tools') && existsSync(candidate)) return candidate;
  }
  return existsSync('/usr/bin/node') ? '/usr/bin/node' : undefined;
}

const oldNode = (() => {
  const node = systemNode();
  if (node === undefined) return undefined;
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  return guard.check(version, '') === null ? undefined : { path: node, version };
})();

const refusal = (version: string, node: string, retry: string) =>
  `error: Gateway needs Node.js 22.12 or newer, and this is Node.js ${version} (${node}); install Node.js 24 (https://nodejs.org, or \`nvm install 24\`), or run it once on Node 24 with \`npx -y -p node@24 ${retry}\`\n`;

describe('the Node version guard', () => {
  it('takes its floor from engines, the same in the repository and every package', () => {
    const engines = ['.', 'packages/cli', 'packages/server', 'packages/sdk'].map(
      (dir) =>
        (
          JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
            engines: { node: string };
          }
        ).engines.node,
    );
    expect(new Set(engines)).toEqual(new Set(['>=22.12']));
    expect(guard.check('v22.12.0', 'x')).toBeNull();
    expect(guard.check('v24.0.0', 'x')).toBeNull();
    expect(guard.check('v23.0.0', 'x')).toBeNull();
    expect(guard.check('v22.11.9', '-- gateway dev')).toBe(
      refusal('v22.11.9', '', '-- gateway dev').replace(' ()', '').trimEnd(),
    );
    expect(guard.check('v8.17.0', 'x')).toMatch(/^error: Gateway needs Node\.js 22\.12/);
  });

  it('uses no syntax newer than Node 14 parses', () => {
    for (const file of [guardFile, binFile, serverBinFile]) {
      const code = readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '');
      // Optional chaining and ?? are Node 14; logical assignment, numeric separators and
      // private members are newer.
      expect(code, file).not.toMatch(/\|\|=|&&=|\?\?=|\d_\d|#\w|\bawait\b/);
    }
  });

  describe.skipIf(oldNode === undefined)(`on the system's ${oldNode?.version} Node`, () => {
    const node = oldNode?.path ?? 'node';
    const version = oldNode?.version ?? '';
    const onOldNode = { ...process.env, PATH: `${dirname(node)}${delimiter}/usr/bin:/bin` };

    it('stops the gateway bin with one line and exit 1, before anything native loads', () => {
      const result = spawnSync(node, [binFile, 'dev', '--port', '0'], {
        cwd: root,
        encoding: 'utf8',
        env: onOldNode,
      });
      expect(result).toMatchObject({
        status: 1,
        signal: null,
        stdout: '',
        stderr: refusal(version, node, '-- gateway dev --port 0'),
      });
    });

    it('stops the gateway-server bin with one line and exit 1, not a SyntaxError stack', () => {
      const result = spawnSync(node, [serverBinFile, '--port', '0'], {
        cwd: root,
        encoding: 'utf8',
        env: onOldNode,
      });
      expect(result).toMatchObject({
        status: 1,
        signal: null,
        stdout: '',
        stderr: refusal(version, node, '-p @gateway/server -- gateway-server --port 0'),
      });
    });

    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;

    // Issue 35, item 1: GATEWAY_NODE_DOWNLOAD=0 keeps the stop with one line.
    it.each([
      ['start', '-p pnpm@12 pnpm start'],
      ['test', '-p pnpm@12 pnpm test'],
      ['gateway', '-p pnpm@12 pnpm gateway'],
    ])('stops the root `%s` script with GATEWAY_NODE_DOWNLOAD=0', (script, retry) => {
      const command = scripts[script] ?? '';
      expect(command).toMatch(/^node packages\/sdk\/bin\/node-guard\.cjs '[^']+' '[^']+'$/);
      const result = spawnSync('sh', ['-c', command], {
        cwd: root,
        encoding: 'utf8',
        env: { ...onOldNode, GATEWAY_NODE_DOWNLOAD: '0' },
      });
      expect(result).toMatchObject({ status: 1, signal: null, stdout: '' });
      expect(result.stderr).toBe(refusal(version, node, retry));
    });

    // Issue 35, item 1: the README's commands work on an older Node: the script runs itself
    // again on Node 24 from the npm registry, saying so in one line, with the arguments given.
    // npx keeps node@24 and pnpm@12 in npm's cache (~/.npm/_npx), so only a machine's first run
    // downloads them; but it asks the registry again for their package documents on every run
    // (node, pnpm and pnpm's 14 platform packages), unless told to prefer its cache.
    it('runs a root script again on Node 24 from the npm registry, with its arguments', () => {
      const result = spawnSync('sh', ['-c', `${scripts.gateway ?? ''} --version`], {
        cwd: root,
        encoding: 'utf8',
        env: { ...onOldNode, npm_config_yes: 'true', npm_config_prefer_offline: 'true' },
        timeout: 240_000,
      });
      expect(result.stderr).toContain(
        `Node.js ${version} is older than the 22.12 Gateway needs: running \`pnpm gateway\` on Node.js 24 from the npm registry (npx -y -p node@24; GATEWAY_NODE_DOWNLOAD=0 stops instead)\n`,
      );
      expect(result.status).toBe(0);
      expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^\d+\.\d+\.\d+$/);
    }, 300_000);
  });
});
