import { type Env, tracingConfigured } from '../config/env.js';

/** Stops tracing, sending what is still buffered. */
export type StopTracing = () => Promise<void>;

/** The service name when `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` name none. */
export const DEFAULT_SERVICE_NAME = 'gateway-server';

/**
 * Turns tracing on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is
 * set: an OTLP/HTTP exporter configured by the standard `OTEL_*` variables, the resource from
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (and the host), W3C trace context taken from
 * requests and propagated on outgoing ones (`fetch`). The SDK is loaded only then, so a gateway
 * without it starts no faster or slower for it. Answers undefined when it is off.
 */
export async function startTracing(env: Env): Promise<StopTracing | undefined> {
  if (!tracingConfigured(env)) return undefined;
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    instrumentation,
    undici,
    resources,
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/resources'),
  ]);
  // Later wins: the SDK's defaults, then the gateway's name, then the host, then the operator's.
  const detected = resources.detectResources({
    detectors: [resources.hostDetector, resources.envDetector],
  });
  await detected.waitForAsyncAttributes?.();
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(detected);
  const provider = new NodeTracerProvider({
    resource,
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
