import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * The gateway's tracer, from whatever provider is registered: the OTLP one `startTracing()`
 * sets up, a test's, or none (then every span is a no-op). Spans carry names, ids of tools and
 * providers, outcomes and statuses: never a token, a secret, an argument or a user's data.
 */
export const tracer = () => trace.getTracer('@gateway/server');

let enabled = false;

/** Turns the spans of tool calls on (`createGateway({ tracing })`); off, they cost a branch. */
export function enableCallSpans(): void {
  enabled = true;
}

/** `work` in a child span named `name` when call spans are on, else `work` alone. */
export function traced<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  return enabled ? inSpan(name, attributes, work) : work(undefined);
}

/**
 * {@link traced} for work that may answer at once: with call spans off, its value comes back as
 * it is, so the caller need not wait a turn for it (issue 37).
 */
export function tracedNow<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span | undefined) => T | Promise<T>,
): T | Promise<T> {
  return enabled ? inSpan(name, attributes, async (span) => work(span)) : work(undefined);
}

/**
 * Runs `work` in a child span of the active one, ending it when `work` settles; a thrown error
 * marks it failed (its type only: messages may quote what a tool was given).
 */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.name : 'error',
      });
      throw error;
    } finally {
      span.end();
    }
  });
}
