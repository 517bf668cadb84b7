/**
 * Issue 17 item 4: `gateway-server` with OTEL_EXPORTER_OTLP_ENDPOINT sends its spans over
 * OTLP/HTTP, continues the trace a request names, and passes it on in the requests it makes.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startBin } from '#test/support/run-bin.js';

const AUTH_SECRET = 'tracing-test-auth-secret-0123456789abcdef';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

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

describe('gateway-server with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it("exports request spans in the caller's trace and propagates it on outgoing requests", async () => {
    const collector = await recorder(() => ({ status: 200, body: '{}' }));
    // An OpenID provider that is down: the gateway's discovery request is what is looked at.
    const idp = await recorder(() => ({ status: 503, body: '{}' }));
    const server = await startBin({
      AUTH_SECRET,
      PORT: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      GCP_CLIENT_ID: 'tracing-client',
      GCP_CLIENT_SECRET: 'tracing-client-secret-value',
      GCP_ISSUER_URL: idp.url,
    });
    let url: string | undefined;
    for (let waited = 0; url === undefined && waited < 60_000; waited += 50) {
      url = /Gateway listening on (http:\/\/\S+)/.exec(server.output.stderr)?.[1];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(url).toBeDefined();
    const traceparent = `00-${TRACE_ID}-b7ad6b7169203331-01`;
    expect((await fetch(`${url}/healthz`, { headers: { traceparent } })).status).toBe(200);
    await fetch(`${url}/api/auth/sign-in/social`, {
      method: 'POST',
      headers: { traceparent, origin: url as string, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'gcp', callbackURL: '/' }),
    });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    // The discovery request carried the caller's trace.
    const discovery = idp.received.find((request) => request.path.includes('openid-configuration'));
    expect(discovery?.headers.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    // The spans reached the collector, named by route, with nothing secret in them.
    const exported = collector.received.filter((request) => request.path === '/v1/traces');
    expect(exported.length).toBeGreaterThan(0);
    const text = exported.map((request) => request.body).join('\n');
    expect(text).toContain('GET /healthz');
    expect(text).toContain(TRACE_ID);
    expect(text).toContain('POST /api/auth/*');
    for (const secret of [AUTH_SECRET, 'tracing-client-secret-value']) {
      expect(text).not.toContain(secret);
    }
  }, 90_000);
});
