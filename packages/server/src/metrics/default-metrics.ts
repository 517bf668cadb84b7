import type { Registry } from 'prom-client';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';

/**
 * How often the event loop's lag is sampled (`nodejs_eventloop_lag_*`), in milliseconds.
 * prom-client's default, 10 ms, is a timer that wakes every instance 100 times a second, busy or
 * not: about 7 ms of CPU a second each, most of an idle instance's CPU, and a cost per call that
 * grows with the time between calls (bench/scale/README.md). Every 100 ms still sees any stall
 * of 100 ms or more, and shorter ones in proportion.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * Registers prom-client's default metrics that need nothing a start does not load anyway, as
 * `collectDefaultMetrics` would (process CPU from now on, start time, memory, file descriptors,
 * handles, heap, Node's version). The others (event loop lag, GC, heap spaces) need Node's
 * `perf_hooks` and `v8`: `late-metrics.ts` registers them once the gateway listens (issue 37).
 *
 * @example
 * const registry = new Registry();
 * registerStartMetrics(registry);
 */
export function registerStartMetrics(registry: Registry): void {
  const config = { eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS };
  processCpuTotal(registry, config);
  processStartTime(registry, config);
  osMemoryHeap(registry, config);
  processOpenFileDescriptors(registry, config);
  processMaxFileDescriptors(registry, config);
  // As collectDefaultMetrics: only where Node has `process.getActiveResourcesInfo`.
  if (typeof process.getActiveResourcesInfo === 'function') processResources(registry, config);
  processHandles(registry, config);
  processRequests(registry, config);
  heapSizeAndUsed(registry, config);
  version(registry, config);
}
