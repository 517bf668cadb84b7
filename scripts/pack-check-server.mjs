// The pack check of the built gateway-server (scripts/pack-check.sh): the shipped bin
// (`bin/gateway-server.cjs`: Node's version check, then dist/bin.cjs, which loads the server's
// scripts of dist/bin/) starts in an empty directory with only AUTH_SECRET set (and the service
// secret it is driven with), answers /healthz from ./.gateway/gateway.db and an MCP client's
// `tools/list`, writes its scripts' code caches after the first answer, stops cleanly on SIGTERM,
// and does all of it again from those caches (issue 37).
//
//   node scripts/pack-check-server.mjs <packages/server> <empty directory>
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { endpointToken, postMcp } from './gateway-endpoint.mjs';

const [server, cwd] = process.argv.slice(2);
if (server === undefined || cwd === undefined) {
  console.error('usage: node scripts/pack-check-server.mjs <packages/server> <empty directory>');
  process.exit(2);
}
const bin = resolve(server, 'bin', 'gateway-server.cjs');
const serviceSecret = 'pack-check-service-secret-0123456789';

function fail(message) {
  console.error(`gateway-server: ${message}`);
  process.exit(1);
}

/** The script caches written below the user's cache directory (HOME is `cwd`). */
function scriptCaches() {
  const nodeCache = join(cwd, '.cache', 'gateway-server', 'node-compile-cache');
  if (!existsSync(nodeCache)) return [];
  return readdirSync(nodeCache).flatMap((version) => {
    const scripts = join(nodeCache, version, 'gateway-server-scripts');
    if (!existsSync(scripts)) return [];
    return readdirSync(scripts).flatMap((build) =>
      readdirSync(join(scripts, build)).map((file) => join(scripts, build, file)),
    );
  });
}

/** Each script cache with its inode: a cache written again is a new file renamed into place. */
const inodes = () => new Map(scriptCaches().map((file) => [file, statSync(file).ino]));

async function start() {
  const child = spawn(process.execPath, [bin], {
    cwd,
    env: {
      AUTH_SECRET: 'pack-check-auth-secret-0123456789',
      SERVICE_API_SECRET: serviceSecret,
      PORT: '0',
      PATH: process.env.PATH,
      HOME: cwd,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
    fail('did not start within 30 s');
  }, 30_000);
  let stderr = '';
  const exitedEarly = (code) => fail(`exited (${code}) before listening: ${stderr}`);
  child.on('exit', exitedEarly);
  const url = await new Promise((resolve) =>
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      const found = /Gateway listening on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    }),
  );
  clearTimeout(timer);
  child.off('exit', exitedEarly);
  const stop = async () => {
    const code = await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    if (code !== 0) fail(`exited ${code} on SIGTERM: ${stderr}`);
  };
  return { url, stop, child };
}

async function json(response, what) {
  if (!response.ok) fail(`${what} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** A user, an MCP endpoint of theirs, and its `tools/list`: a real client's first call. */
async function listTools(url, email) {
  const user = { name: 'Pack', email, password: 'pack-check-password-1' };
  const token = await endpointToken(url, serviceSecret, { user, endpointName: 'pack-check' }).catch(
    (error) => fail(error.message),
  );
  const listed = await postMcp(url, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const text = await listed.text();
  if (listed.status !== 200 || !text.includes('"tools"')) {
    fail(`tools/list answered ${listed.status}: ${text}`);
  }
}

let written = new Map();
for (const [round, email] of [
  ['first start', 'first@example.test'],
  ['start from its code caches', 'second@example.test'],
]) {
  const { url, stop } = await start();
  const health = await json(await fetch(`${url}/healthz`), '/healthz');
  if (health.ok !== true) fail(`/healthz answered ${JSON.stringify(health)}`);
  if (!existsSync(join(cwd, '.gateway', 'gateway.db'))) {
    fail('no .gateway/gateway.db in its working directory');
  }
  await listTools(url, email);
  for (let waited = 0; scriptCaches().length < 20 && waited < 10_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (scriptCaches().length < 20) fail(`wrote ${scriptCaches().length} script caches`);
  await stop();
  // The second start read the first one's caches: V8 took them, so none was written again.
  const rewritten = [...written].filter(([file, inode]) => inodes().get(file) !== inode);
  if (rewritten.length > 0) fail(`wrote its script caches again: ${rewritten.length} of them`);
  written = inodes();
  console.log(
    `gateway-server (bin/gateway-server.cjs), ${round}: answered /healthz and tools/list at ${url}; ${scriptCaches().length} script caches`,
  );
}
