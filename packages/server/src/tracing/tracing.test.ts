/**
 * Issue 17 item 4: spans through OpenTelemetry, continuing the caller's trace, with no secret in
 * any attribute. (The OTLP export of `gateway-server` is tested in start-tracing.test.ts.)
 */
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { describe, expect, it } from 'vitest';
import { connectV2, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { rememberSecret } from '#test/support/known-secrets.js';
import { recordSpans } from '#test/support/recorded-spans.js';
import { TEST_SERVICE_SECRET } from '#test/support/test-gateway.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';

const { exporter, provider } = recordSpans();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('traces', () => {
  it("makes a span per request in the caller's trace, named by route, with nothing secret", async () => {
    // The test's requests come from 127.0.0.1: a proxy the gateway trusts.
    const mcp = await startMcpGateway({
      tracing: true,
      env: { GATEWAY_TRUSTED_PROXIES: '127.0.0.1' },
    });
    const alice = await mcp.user({ roleId: 'reader' });
    const client = await connectV2(mcp.url, alice.mcpToken);
    exporter.reset();

    const response = await fetch(`${mcp.url}/api/me`, {
      headers: { ...alice.headers, traceparent: `00-${TRACE_ID}-${PARENT}-01` },
    });
    expect(response.status).toBe(200);
    await client.callTool({ name: 'demo.echo.say', arguments: { text: 'private words' } });

    const spans = exporter.getFinishedSpans();
    const api = spans.find((span) => span.name === 'GET /api/me');
    expect(api?.spanContext().traceId).toBe(TRACE_ID);
    expect(api?.parentSpanContext?.spanId).toBe(PARENT);
    expect(api?.attributes).toMatchObject({
      'http.route': '/api/me',
      'http.response.status_code': 200,
    });
    const post = spans.filter((span) => span.name === 'POST /mcp');
    expect(post.length).toBeGreaterThan(0);

    // The call's span, under its request's, with a child span per stage.
    const call = spans.find((span) => span.name === 'tools/call');
    expect(call?.attributes).toMatchObject({
      'gateway.tool': 'demo.echo.say',
      'gateway.outcome': 'ok',
    });
    expect(post.map((span) => span.spanContext().spanId)).toContain(
      call?.parentSpanContext?.spanId,
    );
    const children = spans
      .filter((span) => span.parentSpanContext?.spanId === call?.spanContext().spanId)
      .map((span) => span.name);
    expect(children.filter((name) => name.startsWith('gateway.'))).toEqual([
      'gateway.policy',
      'gateway.tool.run',
      'gateway.record',
    ]);
    expect(spans.find((span) => span.name === 'gateway.tool.run')?.attributes).toMatchObject({
      'gateway.tool': 'demo.echo.say',
      'gateway.source': 'plugin',
    });

    const everything = JSON.stringify(
      spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })),
    );
    for (const secret of [alice.mcpToken, alice.token, 'private words', alice.id]) {
      expect(everything).not.toContain(secret);
    }
  });

  // Issue 30 item 5.
  it("starts a new trace for a client's traceparent, linking it, and traces no health check", async () => {
    const mcp = await startMcpGateway({ tracing: true });
    const alice = await mcp.user({ roleId: 'reader' });
    // better-auth loaded and its own spans on, as after the first sign-in (or after an earlier
    // test file of this worker): the scrape below without a credential asks it for a session.
    await mcp.gateway.services.auth.getSession(new Headers());
    await mcp.gateway.services.auth.getSession(new Headers());
    exporter.reset();
    const traceparent = `00-${TRACE_ID}-${PARENT}-01`;
    const response = await fetch(`${mcp.url}/api/me`, {
      headers: { ...alice.headers, traceparent, tracestate: 'vendor=chosen' },
    });
    expect(response.status).toBe(200);
    for (const path of ['/healthz', '/metrics']) {
      await (await fetch(`${mcp.url}${path}`, { headers: { traceparent } })).body?.cancel();
    }

    // Every span, better-auth's included: the scrape's session read makes none under it.
    const spans = exporter.getFinishedSpans();
    const api = spans.find((span) => span.name === 'GET /api/me');
    expect(api?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(api?.parentSpanContext).toBeUndefined();
    expect(api?.spanContext().traceState).toBeUndefined();
    expect(api?.links.map((link) => link.context.traceId)).toEqual([TRACE_ID]);
    expect(spans.some((span) => span.spanContext().traceId === TRACE_ID)).toBe(false);
    // Only the one request: the health check and the scrape made no span, nor did their queries,
    // nor better-auth's session read.
    expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(
      new Set([api?.spanContext().traceId]),
    );
    expect(spans.map((span) => span.name)).not.toContain('GET /healthz');
  });

  it('makes a span per database query, naming the operation and table, never a value', async () => {
    const mcp = await startMcpGateway({ tracing: true });
    const alice = await mcp.user({ roleId: 'reader' });
    exporter.reset();
    const response = await fetch(`${mcp.url}/api/me`, { headers: alice.headers });
    expect(response.status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const api = spans.find((span) => span.name === 'GET /api/me');
    const queries = spans.filter((span) => span.attributes['db.system.name'] === 'sqlite');
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) {
      expect(query.spanContext().traceId).toBe(api?.spanContext().traceId);
      expect(query.name).toMatch(/^(SELECT|INSERT|UPDATE|DELETE)( \w+)?$/);
      expect(query.attributes['db.operation.name']).toBe(query.name.split(' ')[0]);
    }
    // The token's lookup, among others.
    expect(queries.map((span) => span.attributes['db.collection.name'])).toContain(
      'service_accounts',
    );
    // No value, and no SQL text (which could carry one written into it): words and names only.
    const texts = queries.flatMap((span) => [span.name, ...Object.values(span.attributes)]);
    for (const text of texts) {
      expect(String(text)).toMatch(/^[A-Za-z_]+( [A-Za-z_]+)?$/);
      expect(String(text)).not.toContain(alice.id);
    }
  });

  it("calls an upstream MCP server in a client span of the call's trace, and passes the trace on", async () => {
    const upstream = await startFakeUpstream([{ name: 'look', behaviour: { kind: 'answer' } }]);
    const mcp = await startMcpGateway({
      tracing: true,
      env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' },
    });
    const registered = await fetch(`${mcp.url}/api/registry/sources`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_SERVICE_SECRET}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        type: 'mcp',
        approval: 'listed',
        id: 'up',
        namespace: 'up',
        url: upstream.url,
      }),
    });
    expect(registered.status).toBe(201);
    const alice = await mcp.user({ admin: true });
    const client = await connectV2(mcp.url, alice.mcpToken);
    // As startTracing() sets it up: outgoing requests (undici) get client spans and carry the
    // trace. Only for this test: it would trace the tests' own fetch calls too.
    const uninstrument = registerInstrumentations({
      tracerProvider: provider,
      instrumentations: [new UndiciInstrumentation()],
    });
    exporter.reset();
    const result = await client
      .callTool({ name: 'up.look', arguments: { secret: 'hush' } })
      .finally(uninstrument);
    expect(result.isError).toBeFalsy();

    const spans = exporter.getFinishedSpans();
    const run = spans.find((span) => span.name === 'gateway.tool.run');
    expect(run?.attributes).toMatchObject({ 'gateway.tool': 'up.look', 'gateway.source': 'mcp' });
    const outgoing = spans.filter(
      (span) => span.parentSpanContext?.spanId === run?.spanContext().spanId,
    );
    expect(outgoing.map((span) => span.name)).toContain('POST');
    const traceId = run?.spanContext().traceId;
    expect(upstream.calls.at(-1)?.traceparent).toMatch(
      new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`),
    );
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('hush');
  });

  it('names where a credential came from in a vending span, never the credential', async () => {
    const key = 'ghp_serverKeyForTracing0123456789';
    rememberSecret(key);
    const mcp = await startMcpGateway({ tracing: true, env: { GITHUB_API_KEY: key } });
    const admin = await mcp.user({ admin: true });
    const client = await connectV2(mcp.url, admin.mcpToken);
    exporter.reset();
    await client.callTool({ name: 'demo.auth.whoami', arguments: {} });
    const spans = exporter.getFinishedSpans();
    const vend = spans.find((span) => span.name === 'gateway.vend');
    expect(vend?.attributes).toEqual({
      'gateway.provider': 'github',
      'gateway.credential_source': 'api_key',
    });
    const run = spans.find((span) => span.name === 'gateway.tool.run');
    expect(vend?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain(key);
  });

  it('makes none when tracing is off', async () => {
    const mcp = await startMcpGateway({ tracing: false });
    exporter.reset();
    await fetch(`${mcp.url}/healthz`);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
