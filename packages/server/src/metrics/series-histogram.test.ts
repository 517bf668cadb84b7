import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesHistogram } from './series-histogram.js';

const BUCKETS = [0.001, 0.0025, 0.01, 1, 30];
const OBSERVED: [string, string, number][] = [
  ['POST', '/mcp', 0.0004],
  ['POST', '/mcp', 0.001],
  ['POST', '/mcp', 0.0026],
  ['GET', '/api/me', 31],
  ['POST', '/mcp', 0],
  ['GET', '/api/me', 1],
];

/** The same observations through prom-client's Histogram and through SeriesHistogram. */
function both() {
  const theirs = new Registry();
  const ours = new Registry();
  const config = { name: 'x_seconds', help: 'X.', labelNames: ['method', 'route'] as const };
  const histogram = new Histogram({ ...config, buckets: BUCKETS, registers: [theirs] });
  const series = new SeriesHistogram({ ...config, buckets: BUCKETS, registers: [ours] });
  for (const [method, route, seconds] of OBSERVED) {
    histogram.labels(method, route).observe(seconds);
    series.series({ route, method }).observe(seconds);
  }
  return { theirs, ours, series };
}

describe('SeriesHistogram', () => {
  it("prints exactly what prom-client's Histogram prints for the same observations", async () => {
    const { theirs, ours } = both();
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('x_seconds_bucket{le="0.001",method="POST",route="/mcp"} 3');
    expect(text).toContain('x_seconds_count{method="GET",route="/api/me"} 2');
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('keeps one series per label set, and forgets them all on reset', async () => {
    const { ours, series } = both();
    expect(series.series({ method: 'POST', route: '/mcp' }).count).toBe(4);
    ours.resetMetrics();
    expect(series.series({ method: 'POST', route: '/mcp' }).count).toBe(0);
    expect(await ours.metrics()).not.toContain('/api/me');
  });

  it('refuses a value that is not a number, as prom-client does', () => {
    const { series } = both();
    expect(() => series.series({ method: 'GET', route: '/' }).observe(Number.NaN)).toThrow(
      TypeError,
    );
  });

  it("refuses prom-client's own ways to observe, whose series it would never print", () => {
    // As a caller that only knows it as a prom-client Histogram would use it.
    const series: Histogram<'method' | 'route'> = both().series;
    expect(() => series.observe(1)).toThrow(/observe through series/);
    expect(() => series.labels('GET', '/')).toThrow(/observe through series/);
    expect(() => series.startTimer()).toThrow(/observe through series/);
    expect(() => series.zero({ method: 'GET', route: '/' })).toThrow(/observe through series/);
    expect(() => series.remove('GET', '/')).toThrow(/observe through series/);
  });
});
