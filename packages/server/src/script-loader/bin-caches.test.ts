/**
 * The built bin's code caches across real processes (issue 37): `gateway-server` as the system
 * tests run it (test/support/bin-bundle.ts: the server's scripts and their loader, made as the
 * published build makes them) writes its scripts' caches after the first answer, starts from them
 * and answers `/healthz` and MCP calls, and treats a damaged cache or another build's as none.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { bundledBin } from '#test/support/bin-bundle.js';
import { listeningUrl, startBin } from '#test/support/run-bin.js';
import { callTool, startScaleBin } from '#test/support/scale-bin.js';
import { SETTLED_MS } from './script-source.js';

/** The head of a script (build/script-form.ts): a function whose body starts strict. */
const STRICT_WRAPPER = /^\(function\([\w$,]+\)\{"use strict";/;

/** Below Node's compile cache `root` (NODE_COMPILE_CACHE): each build's caches, by build. */
function buildsIn(root: string): string[] {
  return readdirSync(root).flatMap((node) => {
    const scripts = join(root, node, 'gateway-server-scripts');
    return existsSync(scripts) ? readdirSync(scripts).map((build) => join(scripts, build)) : [];
  });
}

/** The script caches in `build`'s directory, each with its inode (a rewrite renames). */
function inodesIn(build: string): Map<string, number> {
  const inodes = new Map<string, number>();
  // Only the caches in place: a temporary file being written may be renamed while it is read.
  for (const file of readdirSync(build).filter((name) => name.endsWith('.cache'))) {
    const found = statSync(join(build, file), { throwIfNoEntry: false });
    if (found !== undefined) inodes.set(file, found.ino);
  }
  return inodes;
}

/** The script caches of the one build in `root`, each with its inode (a rewrite renames). */
function cachesIn(root: string): Map<string, number> {
  const builds = buildsIn(root);
  if (builds.length !== 1 || builds[0] === undefined) return new Map();
  return inodesIn(builds[0]);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A start of the scale gateway, caching in `root`: /healthz and a tool call, then a stop. */
async function serveOnce(root: string, after: () => boolean = () => true): Promise<void> {
  const gateway = await startScaleBin({ NODE_COMPILE_CACHE: root });
  const health = await fetch(`${gateway.url}/healthz`);
  expect(await health.json()).toEqual({ ok: true, database: 'up' });
  const said = await callTool(gateway.url, gateway.token, 'scale.echo.say', { text: 'cached' });
  expect(said.status).toBe(200);
  expect(said.text).toContain('cached');
  await until(after, 'the script caches');
  gateway.child.kill('SIGTERM');
  expect(await gateway.exited).toBe(0);
  expect(gateway.output.stderr).not.toMatch(/crashed|Error/);
}

/**
 * Until every script of the test bundle last changed {@link SETTLED_MS} ago: its caches are then
 * written with the scripts' stamps, as after any install, not checked by their bytes and stamped
 * by the next start (script-source.ts).
 */
async function scriptsSettled(): Promise<void> {
  const scripts = join(dirname(await bundledBin()), 'bin');
  const changed = Math.max(
    ...readdirSync(scripts).map((file) => statSync(join(scripts, file)).ctimeMs),
  );
  await until(() => Date.now() - changed > SETTLED_MS + 50, 'the scripts to settle');
}

async function cacheRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'gateway-script-caches-'));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  return root;
}

describe("the bin's scripts", () => {
  it('are each a function whose body is strict, as the ES modules they were made from', async () => {
    const scripts = join(dirname(await bundledBin()), 'bin');
    const files = (await readdir(scripts)).filter((file) => file.endsWith('.js'));
    expect(files).toContain('server-main.js');
    for (const file of files) {
      const head = (await readFile(join(scripts, file), 'utf8')).slice(0, 200);
      expect([file, head]).toEqual([file, expect.stringMatching(STRICT_WRAPPER)]);
    }
  });
});

describe("the bin's script caches", () => {
  it('are written after the first answer and serve the next start, which writes none again', async () => {
    await scriptsSettled();
    const root = await cacheRoot();
    await serveOnce(root, () => cachesIn(root).size > 20);
    const written = cachesIn(root);
    await serveOnce(root);
    const after = cachesIn(root);
    for (const [file, inode] of written) expect([file, after.get(file)]).toEqual([file, inode]);
  }, 120_000);

  it("are ignored and written again when damaged, and old builds' are removed", async () => {
    const root = await cacheRoot();
    await serveOnce(root, () => cachesIn(root).size > 20);
    const [build] = buildsIn(root);
    if (build === undefined) throw new Error('no caches written');
    const damaged = cachesIn(root);
    for (const file of damaged.keys()) {
      const { size } = await stat(join(build, file));
      await writeFile(join(build, file), randomBytes(size));
    }
    // Three other builds, written 3, 2 and 1 days ago: the two last written are kept.
    const others = ['00000000000000000001', '00000000000000000002', '00000000000000000003'].map(
      (id) => join(build, '..', id),
    );
    for (const [index, other] of others.entries()) {
      await rm(other, { recursive: true, force: true });
      await mkdir(other);
      await writeFile(join(other, 'server-main.js.cache'), randomBytes(64));
      const daysAgo = new Date(Date.now() - (3 - index) * 86_400_000);
      await utimes(other, daysAgo, daysAgo);
    }

    await serveOnce(root, () => {
      const now = inodesIn(build);
      return [...damaged].every(([file, inode]) => now.has(file) && now.get(file) !== inode);
    });
    expect(others.map((other) => existsSync(other))).toEqual([false, true, true]);
    expect((await readdir(build)).length).toBeGreaterThanOrEqual(damaged.size);
  }, 120_000);

  it("are off with NODE_DISABLE_COMPILE_CACHE=1, as Node's compile cache is", async () => {
    const { cwd, child, output, exited } = await startBin({
      AUTH_SECRET: randomBytes(32).toString('base64'),
      PORT: '0',
      NODE_DISABLE_COMPILE_CACHE: '1',
    });
    const url = await listeningUrl(child, output);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(cwd, '.cache'))).toBe(false);
  }, 60_000);
});
