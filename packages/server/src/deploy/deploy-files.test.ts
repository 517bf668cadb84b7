/**
 * The packaging files at the repository root (issue 17 item 6): the Dockerfile and compose.yaml
 * set only settings gateway-server reads, and deploy/haproxy.cfg routes to compose's instances —
 * checked by reading the files, then by running Debian's haproxy with that config in front of
 * two real gateway-server processes. (The image's build and run are checked without Docker by
 * scripts/deploy-check.mjs in CI.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { parse } from 'yaml';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { freePort } from '#test/support/free-port.js';
import { listeningUrl, startBin } from '#test/support/run-bin.js';
import { dockerfileStages } from '../../../../scripts/docker/dockerfile.mjs';
import { SETTINGS } from '../help.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface ComposeService {
  image?: string;
  environment?: Record<string, string | null>;
  volumes?: string[];
  ports?: string[];
  networks?: Record<string, { ipv4_address?: string }> | string[];
}
const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const runtime = dockerfileStages(read('Dockerfile')).at(-1);
const haproxyConfig = read('deploy/haproxy.cfg');
const gatewayServices = Object.keys(compose.services).filter((name) => name.startsWith('gateway'));

/** Whether gateway-server reads `name`: a setting --help lists, or one of its patterns. */
function isSetting(name: string): boolean {
  const listed = SETTINGS.flatMap(([names]) => names.split(', '));
  return (
    listed.includes(name) ||
    /^[A-Z0-9_]+_(CLIENT_ID|CLIENT_SECRET|API_KEY|SCOPES|JWKS_URL)$/.test(name) ||
    // OpenTelemetry's own variables, read by its SDK when OTEL_EXPORTER_OTLP_ENDPOINT is set.
    name.startsWith('OTEL_') ||
    name === 'NODE_ENV'
  );
}

describe('Dockerfile and compose.yaml', () => {
  it('set only settings gateway-server reads', () => {
    expect(runtime).toBeDefined();
    const names = [
      ...Object.keys(runtime?.env ?? {}),
      ...gatewayServices.flatMap((name) => Object.keys(compose.services[name]?.environment ?? {})),
    ];
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((name) => !isSetting(name))).toEqual([]);
  });

  it('runs two instances with the same settings on the PostgreSQL service, trusting only the proxy', () => {
    expect(gatewayServices).toEqual(['gateway-1', 'gateway-2']);
    const [one, two] = gatewayServices.map((name) => compose.services[name]);
    expect(one?.environment).toEqual(two?.environment);
    expect(one?.volumes).toEqual(two?.volumes);
    expect(one?.environment?.DATABASE_URL).toMatch(
      /^postgres:\/\/gateway:.+@postgres:5432\/gateway$/,
    );
    // A secret only ever from the environment, never written in the file.
    expect(one?.environment?.AUTH_SECRET).toMatch(/^\$\{AUTH_SECRET:\?/);
    expect(one?.environment?.SERVICE_API_SECRET).toMatch(/^\$\{SERVICE_API_SECRET:\?/);
    const networks = compose.services.proxy?.networks as Record<string, { ipv4_address: string }>;
    expect(one?.environment?.GATEWAY_TRUSTED_PROXIES).toBe(networks.gateway?.ipv4_address);
  });

  it("has haproxy send to every gateway service, on the image's port, checked on /readyz", () => {
    const servers = [...haproxyConfig.matchAll(/^\s*server\s+(\S+)\s+(\S+):(\d+)/gm)];
    expect(servers.map(([, name, host]) => [name, host])).toEqual(
      gatewayServices.map((name) => [name, name]),
    );
    expect(new Set(servers.map(([, , , port]) => port))).toEqual(new Set([runtime?.env.PORT]));
    // Readiness, checked often enough that a draining instance is out within about 2 s.
    expect(haproxyConfig).toMatch(/^\s*option httpchk GET \/readyz$/m);
    expect(haproxyConfig).toMatch(/^\s*default-server check inter 1s fastinter 500ms fall 2 /m);
    // A request an instance did not take goes to another one.
    expect(haproxyConfig).toMatch(/^\s*option redispatch 1$/m);
    expect(haproxyConfig).toMatch(
      /^\s*retry-on conn-failure empty-response response-timeout 503$/m,
    );
    expect(haproxyConfig).toMatch(/^\s*retries [1-9]$/m);
    // A 2025 session stays on its instance; without one, round robin (the hash's fallback).
    expect(haproxyConfig).toMatch(/^\s*stick store-response res\.hdr\(Mcp-Session-Id\)$/m);
    expect(haproxyConfig).toMatch(/^\s*stick match req\.hdr\(Mcp-Session-Id\)$/m);
    expect(haproxyConfig).toMatch(/^\s*balance hdr\(Mcp-Session-Id\)$/m);
    const bind = /^\s*bind :(\d+)$/m.exec(haproxyConfig)?.[1];
    expect(compose.services.proxy?.ports).toEqual([`${bind}:${bind}`]);
  });
});

describe("the image's command", () => {
  it('gives Node a 16 MB young generation from the start, a flag this Node takes (issue 37)', () => {
    const [command, ...args] = runtime?.cmd ?? [];
    expect(command).toBe('node');
    expect(args.at(-1)).toBe('dist/bin.js');
    const flags = args.slice(0, -1);
    expect(flags).toEqual(['--min-semi-space-size=16']);
    const newSpace = spawnSync(
      process.execPath,
      [
        ...flags,
        '-p',
        "require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size",
      ],
      { encoding: 'utf8' },
    );
    expect(newSpace.stderr).toBe('');
    expect(Number(newSpace.stdout)).toBe(16 * 1024 * 1024);
  });
});

describe('deploy/gateway@.service', () => {
  const unit = read('deploy/gateway@.service');
  const service = Object.fromEntries(
    [...(/^\[Service\]$([\s\S]*?)^\[/m.exec(unit)?.[1] ?? '').matchAll(/^(\w+)=(.*)$/gm)]
      .filter(([, key]) => key !== 'Environment')
      .map(([, key, value]) => [key, value]),
  );
  const environment = [...unit.matchAll(/^Environment=(\w+)=/gm)].map(([, name]) => name ?? '');

  it('restarts a crashed gateway and gives a stop more than the drain may take', () => {
    expect(service.Restart).toBe('on-failure');
    expect(service.KillSignal).toBe('SIGTERM');
    // The default grace (25 s) plus the 5 s the process may take after it.
    expect(Number(service.TimeoutStopSec)).toBeGreaterThan(25 + 5);
    expect(Number(service.LimitNOFILE)).toBeGreaterThanOrEqual(65_536);
  });

  it("runs the image's command from the directory build-runtime.sh makes, with real settings", () => {
    expect(service.ExecStart).toBe(`/usr/bin/${runtime?.cmd?.join(' ')}`);
    expect(service.WorkingDirectory).toBe('/opt/gateway');
    expect(environment).toContain('PORT');
    expect(environment.filter((name) => !isSetting(name))).toEqual([]);
  });
});

const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path));
const postgresUrl = postgresTestUrl();

// CI installs Debian's haproxy (.ci/run) and runs PostgreSQL: there, a missing one fails
// rather than skips.
describe.skipIf((haproxy === undefined || postgresUrl === undefined) && !process.env.CI)(
  'deploy/haproxy.cfg in front of two gateway-server processes on PostgreSQL',
  () => {
    it('spreads requests round robin and keeps a 2025 MCP session on one instance', async () => {
      if (haproxy === undefined)
        throw new Error('haproxy is not installed: apt-get install haproxy');
      if (postgresUrl === undefined) throw new Error('TEST_DATABASE_URL is unset');
      const dir = await mkdtemp(join(tmpdir(), 'gateway-proxy-'));
      onTestFinished(() => rm(dir, { recursive: true, force: true }));
      const database = await createPostgresTestDatabase(postgresUrl, { migrate: false });
      await database.database.close();
      onTestFinished(database.drop);
      const proxyPort = await freePort();
      const base = `http://127.0.0.1:${proxyPort}`;
      // As compose.yaml runs them: one database, the proxy's address as their base URL.
      const env = {
        AUTH_SECRET: 'proxy-test-auth-secret-0123456789abcdef',
        SERVICE_API_SECRET: 'proxy-test-service-secret-0123456789',
        DATABASE_URL: database.url,
        GATEWAY_BASE_URL: base,
      };
      // One after the other: the first migrates the shared database.
      const instances: { output: { stdout: string }; address: string }[] = [];
      for (let i = 0; i < 2; i += 1) {
        const port = await freePort();
        const started = await startBin({ ...env, PORT: String(port) });
        await listeningUrl(started.child, started.output);
        instances.push({ ...started, address: `127.0.0.1:${port}` });
      }
      const config = haproxyConfig
        .replace(/^(\s*bind) :\d+$/m, `$1 127.0.0.1:${proxyPort}`)
        .replace(/^(\s*log stdout.*)$/m, '')
        .replace(
          /^(\s*server\s+gateway-(\d))\s+\S+$/gm,
          (_, head: string, n: string) => `${head} ${instances[Number(n) - 1]?.address}`,
        );
      expect(config).not.toMatch(/gateway-\d:8787/);
      await writeFile(join(dir, 'haproxy.cfg'), config);
      const proxy = spawn(haproxy, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'pipe' });
      let proxyOutput = '';
      proxy.stderr.on('data', (chunk: Buffer) => {
        proxyOutput += chunk.toString();
      });
      onTestFinished(() => {
        proxy.kill('SIGKILL');
      });
      await waitFor(
        async () => (await fetch(`${base}/healthz`)).ok,
        () => proxyOutput,
      );

      // Without a session, round robin (the hash's fallback on a consistent ring: spread, not
      // strictly alternating): twenty requests reach both instances (counted in their logs).
      const route = '"route":"/api/connectors/availability"';
      const count = (i: number) => instances[i]?.output.stdout.split(route).length ?? 0;
      const before = [count(0), count(1)];
      for (let i = 0; i < 20; i += 1) {
        expect((await fetch(`${base}/api/connectors/availability`)).status).toBe(401);
      }
      // Each request's log line follows its answer through a pipe: wait for all twenty.
      const spread = () => [count(0) - (before[0] ?? 0), count(1) - (before[1] ?? 0)];
      await vi.waitFor(() => expect(spread().reduce((sum, one) => sum + one)).toBe(20), {
        timeout: 5000,
        interval: 20,
      });
      expect(Math.min(...spread())).toBeGreaterThanOrEqual(4);

      // A 2025 session through the proxy: every one of its requests reaches the same instance.
      const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify({
          email: 'ada@example.test',
          password: 'correct horse battery',
          name: 'Ada',
        }),
      });
      expect(signUp.status).toBe(200);
      const { user } = (await signUp.json()) as { user: { id: string } };
      const endpoint = await fetch(`${base}/api/connections/mcp-endpoints`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${env.SERVICE_API_SECRET}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ userId: user.id, name: 'proxy test' }),
      });
      const { token } = (await endpoint.json()) as { token: string };
      const client = new Client({ name: 'proxy-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      const mcpRoute = '"route":"/mcp"';
      const served = (i: number) => instances[i]?.output.stdout.split(mcpRoute).length ?? 0;
      const mcpBefore = [served(0), served(1)];
      for (let i = 0; i < 4; i += 1)
        expect(Array.isArray((await client.listTools()).tools)).toBe(true);
      // The four lists' log lines, then: all on one instance, none on the other.
      const counts = () =>
        [served(0) - (mcpBefore[0] ?? 0), served(1) - (mcpBefore[1] ?? 0)].sort((a, b) => a - b);
      await vi.waitFor(() => expect(counts()[1]).toBeGreaterThanOrEqual(4), {
        timeout: 5000,
        interval: 20,
      });
      expect(counts()[0]).toBe(0);
      await client.close();
    }, 120_000);
  },
);

async function waitFor(ready: () => Promise<boolean>, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (await ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`haproxy did not answer: ${log()}`);
}
