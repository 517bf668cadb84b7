import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';
import Registry from 'prom-client/lib/registry.js';
import { registerStartMetrics } from './default-metrics.js';
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
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** The label of a method {@link METHODS} does not list. */
const OTHER_METHOD = 'OTHER';
/** Seconds: from a cached lookup to a slow tool. */
const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

/**
 * The gateway's Prometheus metrics, one registry per gateway. Labels carry only values the
 * gateway bounds: route patterns (never raw paths), tool paths it serves, provider ids,
 * outcomes; never a user id, a token or an argument. A request's label set is looked up once and
 * its series kept, so recording costs a map lookup and an increment on the call path.
 *
 * prom-client's default metrics are registered with it, except those that need Node's
 * `perf_hooks` or `v8` (event loop lag, GC, heap spaces): {@link GatewayMetrics.startLateMetrics}
 * registers them, once the gateway listens or at the first scrape (issue 37).
 *
 * @example
 * const metrics = new GatewayMetrics(sources);
 * metrics.httpRequest('POST', '/mcp', 200, 0.0004);
 * const text = await metrics.scrape();
 */
export class GatewayMetrics {
  /** The gateway's own metrics. */
  readonly registry = new Registry();
  /** The content type of {@link GatewayMetrics.scrape}'s text. */
  readonly contentType = this.registry.contentType;
  readonly #defaults = new Registry();
  readonly #late = new Registry();
  #lateStarted: Promise<void> | undefined;
  #lateScheduled = false;
  readonly #sources: MetricsSources;
  readonly #http: SeriesHistogram<'method' | 'route' | 'status'>;
  /**
   * Requests' series by route, then by status and method together ({@link httpKey}): found
   * without a key string made and hashed per request (issue 37).
   */
  readonly #httpSeries = new Map<string, Map<number, HistogramSeries>>();
  readonly #toolCalls: SeriesHistogram<'tool' | 'outcome'>;
  /** Known tools' series, by tool then outcome: found without a key made per call. */
  readonly #toolSeries = new Map<string, Map<string, HistogramSeries>>();
  readonly #approvalsDecided: Counter<'decision'>;
  readonly #refreshes: Counter<'provider' | 'result'>;
  readonly #upstreamErrors: Counter<'source'>;

  constructor(sources: MetricsSources) {
    this.#sources = sources;
    const registers = [this.registry];
    registerStartMetrics(this.#defaults);
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

  /**
   * Registers the default metrics a start does without (`late-metrics.ts`), once: the event
   * loop's delay monitor and the GC observer start now.
   */
  startLateMetrics(): Promise<void> {
    this.#lateStarted ??= import('./late-metrics.js').then(({ registerLateMetrics }) =>
      registerLateMetrics(this.#late),
    );
    return this.#lateStarted;
  }

  #scheduleLateMetrics(): void {
    this.#lateScheduled = true;
    setImmediate(() => {
      this.startLateMetrics().catch(() => {
        // Left for the next scrape, which awaits the same promise and answers its error.
      });
    });
  }

  /** Every metric in Prometheus' text format: prom-client's default ones, then the gateway's. */
  async scrape(): Promise<string> {
    await this.startLateMetrics();
    return Registry.merge([this.#defaults, this.#late, this.registry]).metrics();
  }

  /**
   * An HTTP request answered: `route` is the matched pattern, or `(unmatched)`. The first one
   * starts the late default metrics on the next turn, once its answer has gone out.
   */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    if (!this.#lateScheduled) this.#scheduleLateMetrics();
    const methodIndex = METHODS.indexOf(method);
    let byStatus = this.#httpSeries.get(route);
    const key = httpKey(status, methodIndex);
    let series = byStatus?.get(key);
    if (series === undefined) {
      const label = methodIndex === -1 ? OTHER_METHOD : method;
      series = this.#http.series({ method: label, route, status: String(status) });
      if (byStatus === undefined) {
        byStatus = new Map();
        this.#httpSeries.set(route, byStatus);
      }
      byStatus.set(key, series);
    }
    series.observe(seconds);
  }

  /** A tool call settled. A name the gateway does not serve counts as `(unknown)`. */
  toolCall(tool: string, outcome: string, seconds: number): void {
    let byOutcome = this.#toolSeries.get(tool);
    let series = byOutcome?.get(outcome);
    if (series === undefined) {
      const known = this.#sources.knownTool(tool);
      series = this.#toolCalls.series({ tool: known ? tool : '(unknown)', outcome });
      // Only known tools are kept: unknown names are as many as callers care to send.
      if (known) {
        if (byOutcome === undefined) {
          byOutcome = new Map();
          this.#toolSeries.set(tool, byOutcome);
        }
        byOutcome.set(outcome, series);
      }
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

/**
 * A request's status and method (its index in {@link METHODS}, -1 for any other) as one number:
 * a small integer, which a map finds without hashing a string.
 */
function httpKey(status: number, methodIndex: number): number {
  return status * (METHODS.length + 1) + methodIndex + 1;
}
