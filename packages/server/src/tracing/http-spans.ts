import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import { tracer } from './tracer.js';

/**
 * A server span per HTTP request, continuing the trace its `traceparent` names (W3C trace
 * context), active while the request is handled so calls and outgoing requests nest under it.
 * Named by method and route pattern (`POST /mcp/:token`), never the raw path, which may hold a
 * token.
 */
export function traceRequests(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, c.req.raw.headers, {
      get: (headers, key) => headers.get(key) ?? undefined,
      keys: (headers) => [...headers.keys()],
    });
    const { method } = c.req;
    const span = tracer().startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
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
