#!/usr/bin/env node
// MCP conformance check for CI. Starts a gateway with the conformance example plugin (a fresh
// SQLite file, an admin user and an MCP endpoint), then runs against it:
//   1. the MCP Inspector CLI: tools/list, and a tools/call of test_simple_text;
//   2. the official conformance suite (all server scenarios) with the expected-failures baseline.
// Prints pass/fail counts; exits non-zero on any unexpected result.
//
// Usage (repository root): node scripts/mcp-conformance.mjs [--balanced]
// Needs Node >= 22.19 (the Inspector's minimum) and network access to the npm registry.
// --balanced: the same run through Debian's haproxy (round-robin, no affinity) in front of three
// gateways sharing a fresh schema of the PostgreSQL database in TEST_DATABASE_URL (issue 17).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';
import { CONFORMANCE, INSPECTOR } from './mcp-conformance/packages.mjs';

// The suite colours its summary whatever NO_COLOR says.
const ANSI_COLOR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const baseline = join(root, 'scripts/mcp-conformance/expected-failures.yml');
// The Inspector and the suite write under $HOME: keep them out of the real one. npm's cache stays
// the real one (it would follow HOME), so npx downloads each of them once, not on every run.
const npmCache =
  process.env.npm_config_cache ||
  execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const home = mkdtempSync(join(tmpdir(), 'gateway-mcp-home-'));
const env = {
  ...process.env,
  HOME: home,
  npm_config_cache: npmCache,
  npm_config_yes: 'true',
  NO_COLOR: '1',
};

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? home,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (options.echo) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

function startGateway(extraEnv = {}) {
  const tsx = join(root, 'node_modules/.bin/tsx');
  const child = spawn(
    tsx,
    ['--tsconfig', 'tsconfig.base.json', 'scripts/mcp-conformance/serve.ts'],
    { cwd: root, env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${log}`)), 60_000);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ child, ...JSON.parse(line), log: () => log });
    });
    child.once('exit', (code) => reject(new Error(`gateway exited (${code}):\n${log}`)));
  });
}

const results = [];
function report(name, ok, detail) {
  results.push({ name, ok });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}

/** Three gateways on one fresh PostgreSQL schema behind haproxy round-robin. */
async function startBalanced() {
  const database = process.env.TEST_DATABASE_URL;
  if (!database) throw new Error('--balanced needs TEST_DATABASE_URL (a PostgreSQL database)');
  const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path));
  if (haproxy === undefined) throw new Error('--balanced needs haproxy (apt-get install haproxy)');
  const authSecret = randomBytes(32).toString('hex');
  // haproxy's port must be known before the gateways start (it is their base URL); theirs are
  // whatever free port each one gets, read from its first line, so no other process can take
  // one between its choice and its bind.
  const lbPort = await freePort();
  const baseUrl = `http://127.0.0.1:${lbPort}`;
  const seed = await startGateway({
    PORT: '0',
    CONFORMANCE_POSTGRES: database,
    CONFORMANCE_BASE_URL: baseUrl,
    CONFORMANCE_AUTH_SECRET: authSecret,
  });
  const others = await Promise.all(
    [1, 2].map(() =>
      startGateway({
        PORT: '0',
        CONFORMANCE_JOIN: seed.databaseUrl,
        CONFORMANCE_BASE_URL: baseUrl,
        CONFORMANCE_AUTH_SECRET: authSecret,
      }),
    ),
  );
  const ports = [seed, ...others].map((gateway) => gateway.port);
  const config = join(home, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'defaults',
      '  mode http',
      '  retries 3',
      '  option redispatch 1',
      '  timeout connect 1s',
      '  timeout client 120s',
      '  timeout server 120s',
      'frontend gateway',
      `  bind 127.0.0.1:${lbPort}`,
      '  default_backend instances',
      'backend instances',
      '  balance roundrobin',
      ...ports.map((port, i) => `  server gw${i} 127.0.0.1:${port}`),
      '',
    ].join('\n'),
  );
  const balancer = spawn(haproxy, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let balancerLog = '';
  balancer.stderr.on('data', (chunk) => {
    balancerLog += chunk;
  });
  const url = baseUrl;
  const all = [seed, ...others];
  const stopAll = () => {
    balancer.kill('SIGKILL');
    for (const gateway of all.toReversed()) gateway.child.kill('SIGTERM');
  };
  for (let waited = 0; ; waited += 100) {
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (balancer.exitCode !== null || waited >= 10_000) {
      stopAll();
      throw new Error(`haproxy did not start on port ${lbPort}:\n${balancerLog}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    token: seed.token,
    log: () => all.map((gateway) => gateway.log()).join(''),
    stop: stopAll,
  };
}

const balanced = process.argv.includes('--balanced');
let gateway;
try {
  gateway = balanced ? await startBalanced() : await startGateway();
  const { url, token } = gateway;
  console.log(
    `${balanced ? 'haproxy in front of three gateways' : 'gateway'} at ${url} (endpoint token redacted)`,
  );

  const list = await run('npx', [
    '-y',
    INSPECTOR,
    '--cli',
    `${url}/mcp`,
    '--header',
    `Authorization: Bearer ${token}`,
    '--method',
    'tools/list',
  ]);
  let tools = [];
  try {
    tools = JSON.parse(list.stdout).tools ?? [];
  } catch {}
  report(
    'inspector tools/list',
    list.code === 0 && tools.some((t) => t.name === 'test_simple_text'),
    `${tools.length} tools`,
  );

  const call = await run('npx', [
    '-y',
    INSPECTOR,
    '--cli',
    `${url}/mcp/${token}`,
    '--transport',
    'http',
    '--method',
    'tools/call',
    '--tool-name',
    'test_simple_text',
  ]);
  report(
    'inspector tools/call (token in URL)',
    call.code === 0 && call.stdout.includes('This is a simple text response for testing.'),
  );

  const out = mkdtempSync(join(tmpdir(), 'gateway-conformance-results-'));
  const suite = await run('npx', [
    '-y',
    CONFORMANCE,
    'server',
    '--suite',
    'all',
    '--url',
    `${url}/mcp/${token}`,
    '--expected-failures',
    baseline,
    '-o',
    out,
  ]);
  const summary = suite.stdout.slice(suite.stdout.indexOf('=== SUMMARY ==='));
  console.log(summary.replaceAll(token, '<token>').replace(ANSI_COLOR, '').trim());
  const scenarios = [...summary.matchAll(/^[✓✗] (\S+):/gm)].length;
  const expected = [...summary.matchAll(/^\s+~ (\S+)/gm)].length;
  const unexpected = summary.includes('Unexpected failures')
    ? [...summary.slice(summary.indexOf('Unexpected failures')).matchAll(/^\s+✗ (\S+)/gm)].length
    : 0;
  const checks = /Total: (\d+) passed, (\d+) failed/.exec(summary);
  report(
    'conformance suite vs. baseline',
    suite.code === 0 && scenarios > 0,
    `${scenarios} scenarios: ${scenarios - expected - unexpected} passed, ${expected} expected failures (baseline), ` +
      `${unexpected} unexpected; checks ${checks?.[1] ?? '?'} passed, ${checks?.[2] ?? '?'} failed`,
  );
  rmSync(out, { recursive: true, force: true });
  if (gateway.log().includes(token)) report('token absent from gateway logs', false);
  else report('token absent from gateway logs', true);
} catch (error) {
  report('run', false, error instanceof Error ? error.message : String(error));
} finally {
  if (gateway?.stop) gateway.stop();
  else gateway?.child.kill('SIGTERM');
  rmSync(home, { recursive: true, force: true });
}

const failures = results.filter((r) => !r.ok).length;
console.log(`\nmcp conformance: ${results.length - failures} checks passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
