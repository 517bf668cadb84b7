/**
 * Issue 17 item 4: `gateway-server` with OTEL_EXPORTER_OTLP_ENDPOINT sends its spans over
 * OTLP/HTTP, continues the trace a request names, and passes it on in the requests it makes.
 * Issue 30 item 5: named by OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, without health
 * checks, with database spans, continuing a trace only from a trusted proxy.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startBin } from '#test/support/run-bin.js';

const AUTH_SECRET = 'tracing-test-auth-secret-0123456789abcdef';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A server on 127.0.0.1 that keeps what it is sent and answers `answer`. */
async function recorder(answer: (path: string) => { status: number; body: string }) {
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      const { status, body: text } = answer(request.url ?? '');
      response.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

interface OtlpValue {
  stringValue?: string;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: OtlpValue }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** The spans of OTLP/HTTP JSON exports (what `@opentelemetry/exporter-trace-otlp-http` sends). */
function exportedSpans(bodies: string[]) {
  const spans: (OtlpSpan & { resource: Record<string, string | undefined> })[] = [];
  for (const body of bodies) {
    for (const { resource, scopeSpans } of (JSON.parse(body) as OtlpExport).resourceSpans) {
      const attributes = Object.fromEntries(
        resource.attributes.map(({ key, value }) => [key, value.stringValue]),
      );
      for (const scope of scopeSpans) {
        for (const span of scope.spans) spans.push({ ...span, resource: attributes });
      }
    }
  }
  return spans;
}

const attribute = (span: OtlpSpan, key: string) =>
  span.attributes?.find((entry) => entry.key === key)?.value.stringValue;

describe('gateway-server with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it("exports spans named by the environment, continues a trusted proxy's trace and no one else's", async () => {
    const collector = await recorder(() => ({ status: 200, body: '{}' }));
    // An OpenID provider that is down: the gateway's discovery request is what is looked at.
    const idp = await recorder(() => ({ status: 503, body: '{}' }));
    // On every address, trusting ::1 only: through [::1] a request comes from its proxy, through
    // 127.0.0.1 from a client.
    const server = await startBin({
      AUTH_SECRET,
      PORT: '0',
      HOST: '::',
      GATEWAY_TRUSTED_PROXIES: '::1',
      GATEWAY_ALLOWED_HOSTS: '127.0.0.1,[::1]',
      GATEWAY_ADMIN_EMAILS: 'ops@example.test',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'gateway-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ci,service.namespace=tools',
      GCP_CLIENT_ID: 'tracing-client',
      GCP_CLIENT_SECRET: 'tracing-client-secret-value',
      GCP_ISSUER_URL: idp.url,
      // No balancer to wait for: SIGTERM stops it without the drain's notice.
      GATEWAY_SHUTDOWN_NOTICE_MS: '0',
    });
    let port: string | undefined;
    for (let waited = 0; port === undefined && waited < 60_000; waited += 50) {
      port = /"address":"\[::\]:(\d+)"/.exec(server.output.stderr)?.[1];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(port).toBeDefined();
    const proxy = `http://[::1]:${port}`;
    const client = `http://127.0.0.1:${port}`;
    const traceparent = `00-${TRACE_ID}-b7ad6b7169203331-01`;
    const clientTraceparent = `00-${CLIENT_TRACE_ID}-00f067aa0ba902b7-01`;
    for (const path of ['/healthz', '/metrics']) {
      await (await fetch(`${proxy}${path}`, { headers: { traceparent } })).body?.cancel();
    }
    await fetch(`${proxy}/api/auth/sign-in/social`, {
      method: 'POST',
      headers: { traceparent, origin: `http://[::]:${port}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'gcp', callbackURL: '/' }),
    });
    const me = await fetch(`${client}/api/me`, {
      headers: { traceparent: clientTraceparent, tracestate: 'vendor=chosen' },
    });
    expect(me.status).toBe(401);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // The discovery request carried the proxy's trace.
    const discovery = idp.received.find((request) => request.path.includes('openid-configuration'));
    expect(discovery?.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    const exported = collector.received.filter((request) => request.path === '/v1/traces');
    expect(exported.length).toBeGreaterThan(0);
    expect(exported[0]?.headers['content-type']).toBe('application/json');
    const spans = exportedSpans(exported.map((request) => request.body));
    // Named as the environment says.
    for (const span of spans) {
      expect(span.resource).toMatchObject({
        'service.name': 'gateway-under-test',
        'service.namespace': 'tools',
        'deployment.environment.name': 'ci',
      });
    }
    const names = spans.map((span) => span.name);
    // No health check or scrape, a span per request otherwise.
    expect(names).not.toContain('GET /healthz');
    expect(names).not.toContain('GET /metrics');
    const signIn = spans.find((span) => span.name === 'POST /api/auth/*');
    expect(signIn?.traceId).toBe(TRACE_ID);
    expect(signIn?.parentSpanId).toBe('b7ad6b7169203331');
    // The client's trace is not continued: a new one, linking it.
    const api = spans.find((span) => span.name === 'GET /api/me');
    expect(api?.traceId).not.toBe(CLIENT_TRACE_ID);
    expect(api?.parentSpanId ?? '').toBe('');
    expect(api?.links?.map((link) => link.traceId)).toEqual([CLIENT_TRACE_ID]);
    expect(spans.filter((span) => span.traceId === CLIENT_TRACE_ID)).toEqual([]);
    // Database spans, inside the request that made them.
    const queries = spans.filter((span) => attribute(span, 'db.system.name') === 'sqlite');
    expect(queries.length).toBeGreaterThan(0);
    const requestTraces = new Set([signIn?.traceId, api?.traceId]);
    for (const query of queries) expect(requestTraces.has(query.traceId)).toBe(true);
    const text = exported.map((request) => request.body).join('\n');
    for (const secret of [AUTH_SECRET, 'tracing-client-secret-value']) {
      expect(text).not.toContain(secret);
    }
  }, 90_000);
});
