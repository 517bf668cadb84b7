import {
  type Context,
  context,
  createContextKey,
  type Link,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { fromTrustedProxy } from '../auth/client-ip.js';
import type { AppEnv } from '../http/app-env.js';
import { tracer } from './tracer.js';

/**
 * Probes a balancer or scraper sends every few seconds: they would drown the traces. Nothing that
 * runs under them is traced either (a scrape without a credential asks better-auth for a session,
 * whose own span would otherwise start a trace of its own).
 */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * `suppressTracing` of `@opentelemetry/core`, whose SDK honours it: the same key (the API makes
 * it with `Symbol.for`, so every copy agrees). Importing it from there would load that package's
 * whole CommonJS index (~60 files of core, api and semantic conventions) at every start, for one
 * line (issue 37); the SDK, which needs the rest, loads only when tracing is configured.
 */
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/**
 * A server span per HTTP request, active while the request is handled so calls, queries and
 * outgoing requests nest under it. Named by method and route pattern (`POST /mcp/:token`), never
 * the raw path, which may hold a token. Health checks and metric scrapes get none, and nothing
 * under them makes one.
 *
 * The trace a request's `traceparent`/`tracestate` names (W3C trace context) is continued only
 * when it comes from one of `trustedProxies` (`GATEWAY_TRUSTED_PROXIES`): anyone else could
 * graft the gateway's spans onto a trace of their choosing, or pick the trace id operators
 * search by. Another client's context becomes a link of a new root span.
 */
export function traceRequests(trustedProxies: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (UNTRACED.has(c.req.path))
      return context.with(context.active().setValue(SUPPRESS_TRACING, true), next);
    const given = propagation.extract(ROOT_CONTEXT, c.req.raw.headers, {
      get: (headers, key) => headers.get(key) ?? undefined,
      keys: (headers) => [...headers.keys()],
    });
    const claimed = trace.getSpanContext(given);
    const trusted = claimed !== undefined && fromTrustedProxy(c, trustedProxies);
    const parent: Context = trusted ? given : ROOT_CONTEXT;
    const links: Link[] = claimed === undefined || trusted ? [] : [{ context: claimed }];
    const { method } = c.req;
    const span = tracer().startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method }, links },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const matched = c.req.routePath;
      const route = matched === '/*' || matched === '*' ? '(unmatched)' : matched;
      const status = c.res.status;
      span.updateName(`${method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
