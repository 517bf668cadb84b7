import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll } from 'vitest';

/**
 * Registers a tracer provider for the test file that calls this (at its top level), keeping
 * every finished span in memory; unregisters it after the file's tests.
 *
 * @example
 * const { exporter, provider } = recordSpans();
 * exporter.reset();
 * expect(exporter.getFinishedSpans().map((span) => span.name)).toContain('SELECT roles');
 */
export function recordSpans(): { exporter: InMemorySpanExporter; provider: NodeTracerProvider } {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  return { exporter, provider };
}
