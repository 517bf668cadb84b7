import { type Env, tracingConfigured } from '../config/env.js';

/** Stops tracing, sending what is still buffered. */
export type StopTracing = () => Promise<void>;

/**
 * Turns tracing on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is
 * set: an OTLP/HTTP exporter configured by the standard `OTEL_*` variables, W3C trace context
 * taken from requests and propagated on outgoing ones (`fetch`). The SDK is loaded only then, so
 * a gateway without it starts no faster or slower for it. Answers undefined when it is off.
 */
export async function startTracing(env: Env): Promise<StopTracing | undefined> {
  if (!tracingConfigured(env)) return undefined;
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    instrumentation,
    undici,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  const provider = new NodeTracerProvider({
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The context manager (AsyncLocalStorage) and the W3C propagator, process-wide.
  provider.register();
  const disable = instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new undici.UndiciInstrumentation()],
  });
  return async () => {
    disable();
    await provider.shutdown();
  };
}
