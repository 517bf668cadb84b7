/**
 * Issue 17 item 3: `GET /metrics` in Prometheus text, behind the service secret or
 * GATEWAY_METRICS_TOKEN, with counters that move with real traffic and labels that carry no
 * user id, token or argument.
 */
import perfHooks from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import { connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { createGateway } from '../gateway.js';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789';

async function scrape(url: string, token: string | undefined): Promise<Response> {
  return fetch(`${url}/metrics`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

/** The value of one series, `name{labels}`, in a scrape; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A gateway in memory, not listening, that `scrapeIn` can scrape. */
function inMemoryGateway() {
  return createGateway({
    databaseUrl: ':memory:',
    configFile: false,
    authSecret: 'a-test-auth-secret-of-at-least-32-characters',
    env: { GATEWAY_METRICS_TOKEN: METRICS_TOKEN },
  });
}

function scrapeIn(gateway: Awaited<ReturnType<typeof inMemoryGateway>>): Promise<Response> {
  return gateway.fetch(
    new Request('http://localhost/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    }),
  );
}

describe('GET /metrics', () => {
  it('counts requests and tool calls by bounded labels, for the metrics token or the service secret only', async () => {
    rememberSecret(METRICS_TOKEN);
    const mcp = await startMcpGateway({ env: { GATEWAY_METRICS_TOKEN: METRICS_TOKEN } });
    const alice = await mcp.user({ roleId: 'reader' });
    const client = await connectV2(mcp.url, alice.mcpToken);

    const before = await (await scrape(mcp.url, METRICS_TOKEN)).text();
    const okBefore =
      sample(
        before,
        'gateway_tool_call_duration_seconds_count{tool="demo.echo.say",outcome="ok"}',
      ) ?? 0;

    for (let i = 0; i < 3; i += 1) {
      await client.callTool({ name: 'demo.echo.say', arguments: { text: `secret-argument-${i}` } });
    }
    await client.callTool({ name: 'demo.echo.say', arguments: { wrong: 1 } });
    // A name the gateway does not serve, chosen by the caller: never a label of its own.
    await client
      .callTool({ name: 'attacker.chosen-name-0001', arguments: {} })
      .catch(() => undefined);

    const response = await scrape(mcp.url, METRICS_TOKEN);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(
      sample(text, 'gateway_tool_call_duration_seconds_count{tool="demo.echo.say",outcome="ok"}'),
    ).toBe(okBefore + 3);
    expect(
      sample(
        text,
        'gateway_tool_call_duration_seconds_count{tool="demo.echo.say",outcome="error"}',
      ),
    ).toBe(1);
    expect(
      sample(text, 'gateway_tool_call_duration_seconds_count{tool="(unknown)",outcome="denied"}'),
    ).toBe(1);
    expect(
      sample(
        text,
        'gateway_http_request_duration_seconds_count{method="POST",route="/mcp",status="200"}',
      ),
    ).toBeGreaterThanOrEqual(5);
    expect(sample(text, 'gateway_approvals_pending')).toBe(0);
    expect(sample(text, 'gateway_mcp_sessions_open')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // Nothing a caller sent or holds.
    for (const leak of [
      'secret-argument',
      'attacker.chosen',
      alice.id,
      alice.mcpToken,
      alice.email,
    ]) {
      expect(text).not.toContain(leak);
    }

    // The service secret reads them too; nobody else does.
    expect((await scrape(mcp.url, TEST_SERVICE_SECRET)).status).toBe(200);
    const anonymous = await scrape(mcp.url, undefined);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'unauthorized' } });
    // A user's API token is a user, not a scraper; an MCP endpoint token opens only its endpoint.
    expect((await scrape(mcp.url, alice.mcpToken)).status).toBe(401);
    const user = await scrape(mcp.url, alice.token);
    expect(user.status).toBe(403);
    expect(await user.json()).toMatchObject({ error: { code: 'forbidden' } });
    const wrong = await scrape(mcp.url, 'not-the-metrics-token-at-all-000');
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(await wrong.json())).not.toContain('not-the-metrics-token');
  });

  it('keeps each method, route and status apart, and any unlisted method as OTHER, over HTTP (issue 37)', async () => {
    const mcp = await startMcpGateway({ env: { GATEWAY_METRICS_TOKEN: METRICS_TOKEN } });
    const series = (method: string, route: string, status: number) =>
      `gateway_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`;
    const before = await (await scrape(mcp.url, METRICS_TOKEN)).text();
    const counted = [
      series('GET', '/healthz', 200),
      series('HEAD', '/healthz', 200),
      series('OTHER', '(unmatched)', 404),
      series('GET', '(unmatched)', 404),
    ];
    const at = (text: string) => counted.map((name) => sample(text, name) ?? 0);
    const start = at(before);
    for (let i = 0; i < 2; i += 1) {
      expect((await fetch(`${mcp.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${mcp.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
    }
    // Methods Node's parser takes that the gateway does not list: one label between them.
    for (const method of ['PROPFIND', 'MKCOL', 'PROPFIND']) {
      expect((await fetch(`${mcp.url}/no-such-route`, { method })).status).toBe(404);
    }
    expect((await fetch(`${mcp.url}/no-such-route`)).status).toBe(404);
    const after = at(await (await scrape(mcp.url, METRICS_TOKEN)).text());
    expect(after.map((value, index) => value - (start[index] ?? 0))).toEqual([2, 2, 3, 1]);
  });

  it('refuses a GATEWAY_METRICS_TOKEN under 16 characters, without echoing it', async () => {
    const attempt = createGateway({
      databaseUrl: ':memory:',
      configFile: false,
      authSecret: 'a-test-auth-secret-of-at-least-32-characters',
      env: { GATEWAY_METRICS_TOKEN: 'short-token-15c' },
    });
    await expect(attempt).rejects.toThrow(/^GATEWAY_METRICS_TOKEN is shorter than 16 characters/);
    await expect(attempt).rejects.not.toThrow(/short-token/);
  });

  it('samples the event loop lag every 100 ms, not every 10: an idle instance is not woken 100 times a second', async () => {
    // prom-client starts Node's event loop delay monitor; its resolution is how often a timer
    // wakes the process to take a sample, whether or not anything else happens.
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const gateway = await inMemoryGateway();
      // A scrape starts it, if no answer has yet.
      const scraped = await scrapeIn(gateway);
      expect(scraped.status).toBe(200);
      await gateway.stop();
      expect(monitor).toHaveBeenCalled();
      for (const [options] of monitor.mock.calls) {
        expect(options?.resolution).toBeGreaterThanOrEqual(100);
      }
    } finally {
      monitor.mockRestore();
    }
  });

  it('starts the event loop monitor and the GC observer after its first answer, and scrapes every default metric first (issue 37)', async () => {
    // They load Node's perf_hooks and v8, which a start's first answer does not need.
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      const gateway = await inMemoryGateway();
      expect(monitor).not.toHaveBeenCalled();
      const health = await gateway.fetch(new Request('http://localhost/healthz'));
      expect(health.status).toBe(200);
      expect(monitor).not.toHaveBeenCalled();
      await vi.waitFor(() => expect(monitor).toHaveBeenCalledTimes(1));
      const scraped = await scrapeIn(gateway);
      const text = await scraped.text();
      await gateway.stop();
      // Started once: the scrape found them started.
      expect(monitor).toHaveBeenCalledTimes(1);
      const families = text
        .split('\n')
        .filter((line) => line.startsWith('# TYPE '))
        .map((line) => line.split(' ')[2] as string);
      for (const name of [
        'process_cpu_seconds_total',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_space_size_total_bytes',
        'nodejs_gc_duration_seconds',
        'gateway_http_request_duration_seconds',
      ]) {
        expect(families).toContain(name);
      }
      // prom-client's defaults, then the gateway's own, as when they shared one registry.
      const firstOwn = families.findIndex((name) => name.startsWith('gateway_'));
      expect(families.slice(firstOwn).every((name) => name.startsWith('gateway_'))).toBe(true);
      // The request before the scrape counted from the start.
      expect(
        sample(
          text,
          'gateway_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}',
        ),
      ).toBe(1);
    } finally {
      monitor.mockRestore();
    }
  });
});
