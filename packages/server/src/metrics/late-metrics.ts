import type { Registry } from 'prom-client';
import eventLoopLag from 'prom-client/lib/metrics/eventLoopLag.js';
import gc from 'prom-client/lib/metrics/gc.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import { EVENT_LOOP_SAMPLE_MS } from './default-metrics.js';

/**
 * Registers the rest of prom-client's default metrics: the event loop's lag (its delay monitor
 * starts now, sampling every {@link EVENT_LOOP_SAMPLE_MS}), GC durations (observed from now on)
 * and the heap's spaces. They load Node's `perf_hooks` and `v8`, which nothing else of a start
 * needs, so this module is imported once the gateway listens, or by the first scrape (issue 37).
 *
 * @example
 * registerLateMetrics(new Registry());
 */
export function registerLateMetrics(registry: Registry): void {
  const config = { eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS };
  eventLoopLag(registry, config);
  heapSpacesSizeAndUsed(registry, config);
  gc(registry, config);
}
