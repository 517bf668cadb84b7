#!/usr/bin/env node
// The Docker image's build and run, checked without Docker (CI cannot pull images): reads the
// Dockerfile and compose.yaml, makes the image's /app directory with the same script the
// Dockerfile runs (scripts/docker/build-runtime.sh), lays out compose.yaml's /app mounts in it,
// then starts the Dockerfile's CMD from it with the Dockerfile's ENV and a gateway service's
// environment from compose.yaml, and checks:
//   - /healthz answers and the Dockerfile's HEALTHCHECK command exits 0 (and 1 once stopped);
//   - the plugin compose.yaml mounts is loaded, registers, and an MCP client lists its tools;
//   - a sign-up works (better-auth, loaded on demand from the bundled bin);
//   - nothing is written under /app, and no development dependency is in it;
//   - the runtime stage runs as a non-root user and exposes the port it listens on.
// On PostgreSQL when TEST_DATABASE_URL is set (as compose.yaml runs it), else on SQLite.
//
// Usage (repository root): node scripts/deploy-check.mjs
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { dockerfileStages } from './docker/dockerfile.mjs';
import { freePort } from './free-port.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'gateway-deploy-check-'));
const app = join(work, 'app');
const secrets = {
  AUTH_SECRET: 'deploy-check-auth-secret-0123456789abcdef',
  SERVICE_API_SECRET: 'deploy-check-service-secret-0123456789',
  POSTGRES_PASSWORD: 'unused-outside-compose',
};
let server;
let dropSchema = async () => undefined;

function fail(message) {
  console.error(`deploy check: ${message}`);
  server?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  dropSchema().finally(() => process.exit(1));
}

function check(condition, message) {
  if (!condition) fail(message);
}

// 1. What the image is, from the Dockerfile.
const stages = dockerfileStages(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const build = stages.find((stage) => stage.name === 'build');
const runtime = stages.at(-1);
check(build !== undefined, 'the Dockerfile has no stage named build');
check(
  build.run.some((line) => line.includes('scripts/docker/build-runtime.sh /runtime')),
  'the build stage does not run scripts/docker/build-runtime.sh /runtime',
);
check(
  runtime.copy.some((line) => /^--from=build \/runtime \/app$/.test(line)),
  'the runtime stage does not COPY --from=build /runtime /app',
);
check(runtime.workdir === '/app', `the runtime WORKDIR is ${runtime.workdir}, not /app`);
check(
  runtime.user !== undefined && !['root', '0'].includes(runtime.user),
  `the runtime stage runs as ${runtime.user ?? 'root'}`,
);
check(
  runtime.expose.includes(runtime.env.PORT),
  `EXPOSE ${runtime.expose.join(' ')} is not PORT ${runtime.env.PORT}`,
);
check(runtime.cmd !== undefined && runtime.healthcheck !== undefined, 'CMD or HEALTHCHECK missing');

// 2. The image's /app, made as the Dockerfile's build stage makes it.
const started = Date.now();
const built = spawnSync('sh', ['scripts/docker/build-runtime.sh', app], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
check(built.status === 0, `scripts/docker/build-runtime.sh exited ${built.status}`);
console.log(`runtime directory built in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const serverManifest = JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8'));
const installed = readdirSync(join(app, 'node_modules/.pnpm'));
const devOnly = Object.keys(serverManifest.devDependencies ?? {}).filter(
  (name) => !(name in serverManifest.dependencies),
);
for (const name of [...devOnly, 'vitest', 'typescript', 'tsup']) {
  const folder = name.replace('/', '+');
  check(
    !installed.some((entry) => entry === folder || entry.startsWith(`${folder}@`)),
    `the runtime has the development dependency ${name}`,
  );
}

// 3. compose.yaml's mounts under /app, and a gateway service's environment.
const compose = parse(readFileSync(join(root, 'compose.yaml'), 'utf8'), { merge: true });
const gateway = compose.services['gateway-1'];
check(gateway !== undefined, 'compose.yaml has no gateway-1 service');
for (const volume of gateway.volumes ?? []) {
  const [source, target] = volume.split(':');
  if (!target.startsWith('/app/')) continue;
  cpSync(join(root, source), join(app, relative('/app', target)), { recursive: true });
}
const filesBefore = listFiles(app);

const port = await freePort();
const dataDir = join(work, 'data');
const env = {
  ...runtime.env,
  ...composeEnvironment(gateway.environment),
  GATEWAY_DATA_DIR: dataDir,
  PORT: String(port),
  // compose.yaml's address is the proxy's; here the instance is reached directly.
  GATEWAY_BASE_URL: `http://localhost:${port}`,
  PATH: process.env.PATH ?? '',
  HOME: work,
};
if (process.env.TEST_DATABASE_URL)
  env.DATABASE_URL = await freshSchema(process.env.TEST_DATABASE_URL);
else delete env.DATABASE_URL;
const database = env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';

// 4. The Dockerfile's CMD, from /app.
const [command, ...args] = runtime.cmd;
const spawned = Date.now();
server = spawn(command === 'node' ? process.execPath : command, args, {
  cwd: app,
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let stderr = '';
server.stderr.setEncoding('utf8').on('data', (chunk) => {
  stderr += chunk;
});
server.stdout.resume();
server.once('exit', (code) => fail(`gateway-server exited (${code}): ${stderr}`));
const url = await new Promise((resolve) => {
  const timer = setTimeout(() => fail(`gateway-server did not start in 30 s: ${stderr}`), 30_000);
  server.stderr.on('data', () => {
    const found = /Gateway listening on (http:\/\/\S+)/.exec(stderr);
    if (found) {
      clearTimeout(timer);
      resolve(`http://127.0.0.1:${new URL(found[1]).port}`);
    }
  });
});
const health = await fetch(`${url}/healthz`);
const firstAnswer = Date.now() - spawned;
check(health.status === 200, `/healthz answered ${health.status}`);
check(/Plugins loaded: notes\b/.test(stderr), `the mounted plugin was not loaded: ${stderr}`);
check(healthcheck() === 0, 'the HEALTHCHECK command failed against a running gateway');

// 5. Real use: a sign-up, the mounted plugin registered, its tools listed over MCP.
const signUp = await fetch(`${url}/api/auth/sign-up/email`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', origin: env.GATEWAY_BASE_URL },
  body: JSON.stringify({
    email: 'ops@example.test',
    password: 'correct horse battery',
    name: 'Ops',
  }),
});
check(signUp.status === 200, `sign-up answered ${signUp.status}: ${await signUp.clone().text()}`);
const { user } = await signUp.json();
const trusted = {
  authorization: `Bearer ${secrets.SERVICE_API_SECRET}`,
  'content-type': 'application/json',
};
const registered = await fetch(`${url}/api/registry/sources`, {
  method: 'POST',
  headers: trusted,
  body: JSON.stringify({ type: 'plugin', id: 'notes', namespace: 'notes', pluginId: 'notes' }),
});
check(registered.status === 201, `registering notes answered ${registered.status}`);
const endpoint = await fetch(`${url}/api/connections/mcp-endpoints`, {
  method: 'POST',
  headers: trusted,
  body: JSON.stringify({ userId: user.id, name: 'deploy check' }),
});
check(endpoint.status === 201, `creating an MCP endpoint answered ${endpoint.status}`);
const { token } = await endpoint.json();
const tools = await listTools(url, token);
check(
  tools.some((name) => name.startsWith('notes.')),
  `tools/list has no notes tool: ${tools.join(', ')}`,
);

// 6. Stopped as `docker stop` does; the health check then fails.
server.removeAllListeners('exit');
const code = await new Promise((resolve) => {
  server.once('exit', resolve);
  server.kill('SIGTERM');
});
check(code === 0, `gateway-server exited ${code} on SIGTERM`);
check(healthcheck() !== 0, 'the HEALTHCHECK command passed with the gateway stopped');
const written = listFiles(app).filter((file) => !filesBefore.includes(file));
check(written.length === 0, `the gateway wrote under /app: ${written.join(', ')}`);

console.log(
  `deploy check passed on ${database}: the image's CMD served /healthz ${firstAnswer} ms after start, HEALTHCHECK passed (and failed once stopped), sign-up worked, notes registered and listed over MCP (${tools.length} tools), nothing written under /app`,
);
await dropSchema();
rmSync(work, { recursive: true, force: true });

/**
 * A schema of its own on the test database (dropped at the end), so the check starts empty and
 * leaves nothing behind; pg from the runtime directory, the driver the gateway itself uses.
 */
async function freshSchema(url) {
  const { Client } = createRequire(join(app, 'package.json'))('pg');
  const schema = `deploy_check_${randomBytes(6).toString('hex')}`;
  const query = async (sql) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await query(`create schema "${schema}"`);
  dropSchema = () => query(`drop schema if exists "${schema}" cascade`);
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  return scoped.href;
}

/** The Dockerfile's HEALTHCHECK command, run as Docker runs it inside the container. */
function healthcheck() {
  const [program, ...rest] = runtime.healthcheck;
  const result = spawnSync(program === 'node' ? process.execPath : program, rest, {
    cwd: app,
    env,
    timeout: 10_000,
  });
  return result.status ?? 1;
}

/** A compose service's environment with `${VAR:?...}` and `${VAR:-default}` resolved. */
function composeEnvironment(environment) {
  const entries = Array.isArray(environment)
    ? environment.map((line) => line.split(/=(.*)/s).slice(0, 2))
    : Object.entries(environment ?? {});
  return Object.fromEntries(
    entries.map(([name, value]) => [
      name,
      String(value ?? '').replace(
        /\$\{(\w+)(?::([?-])([^}]*))?\}/g,
        (_, variable, kind, rest) => secrets[variable] ?? (kind === '-' ? rest : ''),
      ),
    ]),
  );
}

/** Every MCP tool name the endpoint lists (2026-07-28: one request, no session). */
async function listTools(base, mcpToken) {
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${mcpToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'deploy-check', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  const text = await response.text();
  check(response.status === 200, `tools/list answered ${response.status}: ${text}`);
  const json = text.trimStart().startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5))
        .join('');
  return (JSON.parse(json).result?.tools ?? []).map((tool) => tool.name);
}

/** The files under `dir`, `node_modules` left out (the check is about what the gateway writes). */
function listFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listFiles(path).map((file) => join(entry.name, file)));
    else files.push(entry.name);
  }
  return files;
}
