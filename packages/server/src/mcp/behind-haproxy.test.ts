import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createPostgresTestDatabase, postgresTestUrl } from '#test/db/test-database.js';
import { connectV2 } from '#test/mcp/mcp-test-kit.js';
import { freePort } from '#test/support/free-port.js';
import { haproxyBinary, startHaproxy } from '#test/support/haproxy.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { startBin } from '#test/support/run-bin.js';
import { slowWaitStarted } from '#test/support/scale-bin.js';

// Issue 17 item 2 and issue 30: three gateway-server processes on one PostgreSQL database behind
// Debian's haproxy with deploy/haproxy.cfg as shipped (round robin; a 2025 session stays on the
// instance that opened it). Under load one instance is stopped with SIGTERM (a deploy: no request
// fails), then another killed with SIGKILL (only the calls in flight on it may fail).

const pgUrl = postgresTestUrl();
const haproxy = haproxyBinary();
const plugin = fileURLToPath(
  new URL('../../test/support/fixtures/scale-plugin.ts', import.meta.url),
);
const AUTH_SECRET = randomBytes(32).toString('base64');
const SERVICE_API_SECRET = randomBytes(24).toString('hex');
const PASSWORD = randomBytes(12).toString('hex');
const INSTANCES = 3;
const GRACE_MS = 6000;

const skipReason = !pgUrl
  ? 'TEST_DATABASE_URL is unset'
  : haproxy === undefined
    ? 'haproxy is not installed (apt-get install haproxy; .ci/run does)'
    : undefined;

async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000) {
  for (let waited = 0; waited < ms; waited += 100) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Three instances behind haproxy; every instance's own address too. */
async function cluster() {
  const scoped = await createPostgresTestDatabase(pgUrl as string);
  onTestFinished(scoped.drop);
  const dir = await mkdtemp(join(tmpdir(), 'gateway-lb-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'gateway.config.js');
  await writeFile(config, `export default { plugins: [${JSON.stringify(plugin)}] };\n`);
  const lbPort = await freePort();
  const ports: number[] = [];
  for (let i = 0; i < INSTANCES; i += 1) ports.push(await freePort());
  const baseUrl = `http://127.0.0.1:${lbPort}`;
  const servers = await Promise.all(
    ports.map((port) =>
      startBin({
        AUTH_SECRET,
        SERVICE_API_SECRET,
        PORT: String(port),
        DATABASE_URL: scoped.url,
        GATEWAY_CONFIG: config,
        GATEWAY_BASE_URL: baseUrl,
        GATEWAY_REGISTRY_SYNC_SECONDS: '1',
        GATEWAY_SHUTDOWN_GRACE_MS: String(GRACE_MS),
        GATEWAY_SHUTDOWN_NOTICE_MS: '2500',
      }),
    ),
  );
  for (const [index, server] of servers.entries()) {
    await waitFor(
      `instance ${index}`,
      async () => (await fetch(`http://127.0.0.1:${ports[index]}/healthz`)).ok,
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${server.output.stderr}`);
    });
  }
  const lb = await startHaproxy(haproxy as string, lbPort, ports);
  return { url: lb.url, ports, servers };
}

/** A browser's cookie jar for one site, over plain fetch. */
function browser(url: string) {
  const jar = new Map<string, string>();
  return {
    async go(path: string, init: RequestInit = {}) {
      const headers = new Headers(init.headers);
      headers.set('origin', url);
      if (jar.size > 0) {
        headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
      }
      const response = await fetch(`${url}${path}`, { ...init, headers, redirect: 'manual' });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair] = cookie.split(';');
        const at = pair?.indexOf('=') ?? -1;
        if (pair !== undefined && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return response;
    },
  };
}

/**
 * A v1 client (2025 session) through the balancer, noting which instance served each request
 * (in `servedBy`, and in order in `served`).
 */
async function connectV1(url: string, token: string, servedBy: Set<string>, served: string[]) {
  const client = new V1Client(
    { name: 'lb-v1', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  const transport = new V1Transport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const by = response.headers.get('x-served-by');
      if (by !== null) {
        servedBy.add(by);
        served.push(by);
      }
      return response;
    },
  });
  // A GET stream cut by the kill is reconnected by the client; that is no failed call.
  client.onerror = () => {};
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport };
}

interface Op {
  started: number;
  ended: number;
  ok: boolean;
  what: string;
}

describe.skipIf(skipReason !== undefined)(
  `three gateway-server instances behind deploy/haproxy.cfg${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    it('serves 2025 and 2026 clients and the web app, keeps a session on its instance, and survives a deploy and a crash', async () => {
      rememberSecret(PASSWORD);
      const { url, ports, servers } = await cluster();

      // The web app: sign up, then sign in through the form; the cookie works on every instance.
      const signedUp = await fetch(`${url}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ name: 'Ada', email: 'ada@example.test', password: PASSWORD }),
      });
      expect(signedUp.status).toBe(200);
      const { user } = (await signedUp.json()) as { user: { id: string } };
      const web = browser(url);
      const signedIn = await web.go('/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          email: 'ada@example.test',
          password: PASSWORD,
          next: '/tools',
        }),
      });
      expect(signedIn.status).toBe(303);
      // Round robin reaches every instance, unless a health check timed out on a loaded machine
      // and the balancer skips an instance until its next checks pass: ask until each served.
      const pagesBy = new Set<string>();
      const notSignedIn: string[] = [];
      await waitFor('a page from every instance', async () => {
        const page = await web.go('/tools');
        const by = page.headers.get('x-served-by') ?? '';
        if (page.status !== 200 || !(await page.text()).includes('Ada')) notSignedIn.push(by);
        else pagesBy.add(by);
        return pagesBy.size === INSTANCES;
      });
      expect(notSignedIn).toEqual([]);

      const registered = await fetch(`${url}/api/registry/sources`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${SERVICE_API_SECRET}`,
        },
        body: JSON.stringify({
          type: 'plugin',
          id: 'scale',
          namespace: 'scale',
          pluginId: 'scale',
        }),
      });
      expect(registered.status).toBe(201);
      const endpoint = await web.go('/api/connections/mcp-endpoints', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userId: user.id, name: 'lb' }),
      });
      expect(endpoint.status).toBe(201);
      const { token } = (await endpoint.json()) as { token: string };
      rememberSecret(token);
      // Every instance has read the registration (GATEWAY_REGISTRY_SYNC_SECONDS).
      const servedBy = new Set<string>();
      const served: string[] = [];
      const { client, transport } = await connectV1(url, token, servedBy, served);
      await waitFor('the tools on every instance', async () => {
        for (let i = 0; i < INSTANCES; i += 1) {
          const { tools } = await client.listTools();
          if (!tools.some((tool) => tool.name === 'scale.files.delete')) return false;
        }
        return true;
      });

      // MCP SDK v1, a 2025 session: calls, an approval through elicitation, progress.
      const asked: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: { approve: true } };
      });
      for (let i = 0; i < INSTANCES * 2; i += 1) {
        const echoed = await client.callTool({
          name: 'scale.echo.say',
          arguments: { text: `v1 ${i}` },
        });
        expect(echoed.structuredContent).toEqual({ text: `v1 ${i}` });
      }
      for (let i = 0; i < INSTANCES; i += 1) {
        const deleted = await client.callTool({
          name: 'scale.files.delete',
          arguments: { name: `f${i}.txt` },
        });
        expect(deleted.structuredContent).toEqual({ deleted: `f${i}.txt` });
      }
      expect(asked).toHaveLength(INSTANCES);
      const progress: number[] = [];
      const copied = await client.callTool(
        { name: 'scale.files.copy', arguments: { files: ['a', 'b', 'c'] } },
        undefined,
        { onprogress: (update) => progress.push(update.progress) },
      );
      expect(copied.structuredContent).toEqual({ copied: 3 });
      expect(progress).toEqual([1, 2, 3]);
      // Every request of the 2025 session, its initialize included, went to one instance.
      expect(servedBy.size).toBe(1);
      expect(served.length).toBeGreaterThan(INSTANCES * 4);
      // MCP SDK v2 (2026-07-28, stateless).
      const v2 = await connectV2(url, token);
      for (let i = 0; i < INSTANCES; i += 1) {
        const result = await v2.callTool({
          name: 'scale.echo.say',
          arguments: { text: `v2 ${i}` },
        });
        expect(result.structuredContent).toEqual({ text: `v2 ${i}` });
      }

      // Writes and calls from every client while one instance is killed.
      const ops: Op[] = [];
      const acknowledged: string[] = [];
      const run = async (what: string, action: () => Promise<boolean>) => {
        const op: Op = { started: Date.now(), ended: 0, ok: false, what };
        ops.push(op);
        op.ok = await action().catch(() => false);
        op.ended = Date.now();
      };
      const write = (i: number) =>
        run(`write ${i}`, async () => {
          rememberSecret(`scale-secret-${i}-${SERVICE_API_SECRET.slice(0, 8)}`);
          const response = await web.go('/api/connections', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              userId: user.id,
              toolId: 'scale',
              instanceName: `conn-${i}`,
              secret: `scale-secret-${i}-${SERVICE_API_SECRET.slice(0, 8)}`,
            }),
          });
          if (response.status !== 201) return false;
          acknowledged.push(((await response.json()) as { id: string }).id);
          return true;
        });
      const v1Call = (i: number) =>
        run(`v1 call ${i}`, async () => {
          // A call whose stream the kill cut is never answered: the client gives up then.
          const result = await client.callTool(
            { name: 'scale.echo.say', arguments: { text: `k${i}` } },
            undefined,
            { timeout: 6000 },
          );
          return JSON.stringify(result.structuredContent) === JSON.stringify({ text: `k${i}` });
        });
      const v2Call = (i: number) =>
        run(`v2 call ${i}`, async () => {
          const result = await v2.callTool({
            name: 'scale.echo.say',
            arguments: { text: `m${i}` },
          });
          return JSON.stringify(result.structuredContent) === JSON.stringify({ text: `m${i}` });
        });
      // A deploy: the instance holding the 2025 session gets SIGTERM under steady load. Not one
      // request fails: calls in flight on it finish, new ones go to the others (those it was
      // sent before the balancer noticed are refused with 503 and retried by haproxy), and the
      // session's client, its stream closed, carries on through another instance.
      const holder = served.at(-1) ?? '';
      const stopIndex = Number(holder.replace('gw', ''));
      const stopped = servers[stopIndex];
      if (stopped === undefined) throw new Error(`no instance ${holder}`);
      const inFlightAtStop = [
        run('slow session call at the SIGTERM', async () => {
          const result = await client.callTool(
            { name: 'scale.slow.wait', arguments: { ms: 2000 } },
            undefined,
            { timeout: GRACE_MS * 2 },
          );
          return !result.isError;
        }),
      ];
      let loading = true;
      const load = (async () => {
        for (let i = 1000; loading; i += 1) await Promise.all([write(i), v1Call(i), v2Call(i)]);
      })();
      // The slow session call is running on the instance about to stop.
      await slowWaitStarted(stopped.output, 2000);
      const servedBeforeStop = served.length;
      const signalled = Date.now();
      stopped.child.kill('SIGTERM');
      expect(await stopped.exited).toBe(0);
      // Within the grace plus a few seconds (the notice, the calls in flight, the database).
      expect(Date.now() - signalled).toBeLessThan(GRACE_MS + 5000);
      // The session carries on through another instance.
      await vi.waitFor(
        () =>
          expect(
            served.slice(servedBeforeStop).filter((by) => by !== holder).length,
          ).toBeGreaterThanOrEqual(3),
        { timeout: 15_000, interval: 20 },
      );
      // The load goes on until it has made more than 30 requests: how many fit in the stop depends
      // on how fast the stopped process ends (a bundle ends sooner than sources through tsx).
      for (const until = Date.now() + 30_000; ops.length <= 30 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      loading = false;
      await Promise.all([load, ...inFlightAtStop]);
      expect(ops.filter((op) => !op.ok).map((op) => op.what)).toEqual([]);
      expect(ops.length).toBeGreaterThan(30);
      // After the stop the session went to one other instance.
      const movedTo = new Set(served.slice(servedBeforeStop).filter((by) => by !== holder));
      expect(movedTo.size).toBe(1);
      expect(stopped.output.stdout + stopped.output.stderr).not.toContain('MCP endpoint is closed');
      const stopOps = ops.length;

      // A crash: the instance now holding the session is killed (SIGKILL) under load.
      const killIndex = Number([...movedTo][0]?.replace('gw', ''));
      // Calls in flight when the instance dies: one of them may be on it.
      const slow = Array.from({ length: INSTANCES }, (_, i) =>
        run(`slow call ${i}`, async () => {
          const result = await client.callTool(
            { name: 'scale.slow.wait', arguments: { ms: 1500 } },
            undefined,
            { timeout: 6000 },
          );
          return !result.isError;
        }),
      );
      // And one surely on the instance about to die, sent to it directly in the same session.
      const onVictim = run('slow call on the victim', async () => {
        const response = await fetch(`http://127.0.0.1:${ports[killIndex]}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': transport.sessionId ?? '',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 'victim',
            method: 'tools/call',
            params: { name: 'scale.slow.wait', arguments: { ms: 3000 } },
          }),
        });
        return (await response.text()).includes('"waited":3000');
      });
      const before = Array.from({ length: 12 }, (_, i) =>
        Promise.all([write(i), v1Call(i), v2Call(i)]),
      );
      const victim = servers[killIndex];
      if (victim === undefined || killIndex === stopIndex) throw new Error('no instance to kill');
      // The call sent to it is running there.
      await slowWaitStarted(victim.output, 3000);
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      await victim.exited;
      await Promise.all([...before, ...slow, onVictim]);
      for (let i = 12; i < 30; i += 1) await Promise.all([write(i), v1Call(i), v2Call(i)]);

      // Only what was in flight when the instance died may have failed, and something did: the
      // call sent to it directly.
      const failed = ops.slice(stopOps).filter((op) => !op.ok);
      expect(failed.map((op) => op.what)).toContain('slow call on the victim');
      const notInFlight = failed.filter((op) => op.started > killedAt || op.ended < killedAt);
      expect(notInFlight).toEqual([]);

      // No acknowledged write is lost.
      const listed = await web.go(`/api/connections?userId=${user.id}`);
      const { connections } = (await listed.json()) as { connections: { id: string }[] };
      const stored = new Set(connections.map((connection) => connection.id));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      expect(acknowledged.length).toBeGreaterThanOrEqual(30);

      // The 2025 session carries on through the survivors.
      const after = await client.callTool({
        name: 'scale.files.delete',
        arguments: { name: 'last.txt' },
      });
      expect(after.structuredContent).toEqual({ deleted: 'last.txt' });
    }, 300_000);
  },
);
