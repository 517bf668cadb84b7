import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { type HistogramSeries, SeriesHistogram } from './series-histogram.js';

/** What the metrics read when scraped, from the features that know. */
export interface MetricsSources {
  /** Approvals stored and waiting for a decision. */
  pendingApprovals(): Promise<number>;
  /** 2025-revision MCP sessions open on this instance. */
  openSessions(): number;
  /** Whether `path` names a tool this gateway serves (other names are not used as labels). */
  knownTool(path: string): boolean;
  /** The PostgreSQL pool's connections, when there is a pool. */
  pool?(): { total: number; idle: number; waiting: number };
}

/** HTTP methods kept as labels; any other is `OTHER` (a client chooses the method). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Seconds: from a cached lookup to a slow tool. */
const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/**
 * How often the event loop's lag is sampled (`nodejs_eventloop_lag_*`), in milliseconds.
 * prom-client's default, 10 ms, is a timer that wakes every instance 100 times a second, busy or
 * not: about 7 ms of CPU a second each, most of an idle instance's CPU, and a cost per call that
 * grows with the time between calls (bench/scale/README.md). Every 100 ms still sees any stall
 * of 100 ms or more, and shorter ones in proportion.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * The gateway's Prometheus metrics, one registry per gateway. Labels carry only values the
 * gateway bounds: route patterns (never raw paths), tool paths it serves, provider ids,
 * outcomes; never a user id, a token or an argument. A request's label set is looked up once and
 * its series kept, so recording costs a map lookup and an increment on the call path.
 *
 * @example
 * const metrics = new GatewayMetrics(sources);
 * metrics.httpRequest('POST', '/mcp', 200, 0.0004);
 * const text = await metrics.registry.metrics();
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #sources: MetricsSources;
  readonly #http: SeriesHistogram<'method' | 'route' | 'status'>;
  readonly #httpSeries = new Map<string, HistogramSeries>();
  readonly #toolCalls: SeriesHistogram<'tool' | 'outcome'>;
  readonly #toolSeries = new Map<string, HistogramSeries>();
  readonly #approvalsDecided: Counter<'decision'>;
  readonly #refreshes: Counter<'provider' | 'result'>;
  readonly #upstreamErrors: Counter<'source'>;

  constructor(sources: MetricsSources) {
    this.#sources = sources;
    const registers = [this.registry];
    collectDefaultMetrics({
      register: this.registry,
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
    this.#http = new SeriesHistogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status, and how long they took.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#toolCalls = new SeriesHistogram({
      name: 'gateway_tool_call_duration_seconds',
      help: 'Tool calls by tool and outcome, and how long they took.',
      labelNames: ['tool', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#approvalsDecided = new Counter({
      name: 'gateway_approvals_decided_total',
      help: 'Approvals of destructive tool calls decided, by decision.',
      labelNames: ['decision'],
      registers,
    });
    this.#refreshes = new Counter({
      name: 'gateway_token_refreshes_total',
      help: 'OAuth access token refreshes by provider and result (ok, failed).',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.#upstreamErrors = new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Errors talking to an upstream tool source, by source.',
      labelNames: ['source'],
      registers,
    });
    new Gauge({
      name: 'gateway_approvals_pending',
      help: 'Approvals stored and waiting for a decision.',
      registers,
      async collect() {
        this.set(await sources.pendingApprovals());
      },
    });
    new Gauge({
      name: 'gateway_mcp_sessions_open',
      help: 'MCP sessions (2025 revisions) open on this instance.',
      registers,
      collect() {
        this.set(sources.openSessions());
      },
    });
    new Gauge({
      name: 'gateway_db_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle, waiting clients).',
      labelNames: ['state'],
      registers,
      collect() {
        const pool = sources.pool?.();
        if (pool === undefined) return;
        this.set({ state: 'total' }, pool.total);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
  }

  /** An HTTP request answered: `route` is the matched pattern, or `(unmatched)`. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const label = METHODS.has(method) ? method : 'OTHER';
    const key = `${label} ${status} ${route}`;
    let series = this.#httpSeries.get(key);
    if (series === undefined) {
      series = this.#http.series({ method: label, route, status: String(status) });
      this.#httpSeries.set(key, series);
    }
    series.observe(seconds);
  }

  /** A tool call settled. A name the gateway does not serve counts as `(unknown)`. */
  toolCall(tool: string, outcome: string, seconds: number): void {
    const key = `${outcome} ${tool}`;
    let series = this.#toolSeries.get(key);
    if (series === undefined) {
      const known = this.#sources.knownTool(tool);
      series = this.#toolCalls.series({ tool: known ? tool : '(unknown)', outcome });
      // Only known tools are kept: unknown names are as many as callers care to send.
      if (known) this.#toolSeries.set(key, series);
    }
    series.observe(seconds);
  }

  approvalDecided(decision: string): void {
    this.#approvalsDecided.labels(decision).inc();
  }

  tokenRefresh(provider: string, result: 'ok' | 'failed'): void {
    this.#refreshes.labels(provider, result).inc();
  }

  upstreamError(source: string): void {
    this.#upstreamErrors.labels(source).inc();
  }
}
