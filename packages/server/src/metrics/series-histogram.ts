import type { HistogramConfiguration } from 'prom-client';
import Histogram from 'prom-client/lib/histogram.js';

/** One label set's observations: a count per bucket (not cumulative), their sum and count. */
export class HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly #bounds: readonly number[];
  /** The observations in each bucket; the last counts those above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(labels: Readonly<Record<string, string>>, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.#bounds;
    let at = 0;
    while (at < bounds.length && value > (bounds[at] as number)) at += 1;
    this.counts[at] = (this.counts[at] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * A prom-client `Histogram` whose series are kept by the caller ({@link SeriesHistogram.series})
 * and whose exposition is the same as prom-client's, sample for sample. prom-client's own
 * `observe` validates the labels, hashes them into a string and looks the bucket up by its bound
 * as a property name (a number turned into text) on every observation: ~1.5% of the gateway's
 * busy time on the MCP path, twice a call (bench/mcp/README.md). Here an observation is a loop
 * over the bounds and three additions.
 *
 * @example
 * const http = new SeriesHistogram({ name: 'x_seconds', help: 'X', labelNames: ['route'], buckets: [0.1, 1], registers });
 * const series = http.series({ route: '/mcp' });
 * series.observe(0.02);
 */
export class SeriesHistogram<Label extends string> extends Histogram<Label> {
  readonly #name: string;
  readonly #help: string;
  readonly #labelNames: readonly Label[];
  readonly #bounds: readonly number[];
  /** Every label set observed, by its values (in `labelNames`' order, as prom-client keeps them). */
  #series = new Map<string, HistogramSeries>();

  constructor(config: HistogramConfiguration<Label> & { buckets: readonly number[] }) {
    super({ ...config, buckets: [...config.buckets] });
    this.#name = config.name;
    this.#help = config.help;
    this.#labelNames = config.labelNames ?? [];
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
    this.observe = () => {
      throw notHere('observe');
    };
  }

  /** The series of `labels` (every label named), for the caller to keep and observe. */
  series(labels: Readonly<Record<Label, string>>): HistogramSeries {
    const values = this.#labelNames.map((name) => labels[name]);
    const key = values.join('\u0000');
    let series = this.#series.get(key);
    if (series === undefined) {
      const ordered: Record<string, string> = {};
      this.#labelNames.forEach((name, at) => {
        ordered[name] = values[at] as string;
      });
      series = new HistogramSeries(ordered, this.#bounds);
      this.#series.set(key, series);
    }
    return series;
  }

  // prom-client's own ways to observe would write series this class never prints: refused, so a
  // later caller cannot lose observations without a word (`observe` in the constructor: prom-client
  // sets it on the instance).
  override labels(): never {
    throw notHere('labels');
  }

  override startTimer(): never {
    throw notHere('startTimer');
  }

  override zero(): never {
    throw notHere('zero');
  }

  override remove(): never {
    throw notHere('remove');
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset() before this class's fields exist.
    if (#series in this) this.#series = new Map();
  }

  /** What prom-client's registry prints (and `get()` splays): the values prom-client would give. */
  async getForPromString() {
    const name = this.#name;
    const values: ExportedValue[] = [];
    for (const series of this.#series.values()) {
      const shared = series.labels;
      let acc = 0;
      this.#bounds.forEach((bound, at) => {
        acc += series.counts[at] as number;
        values.push(exported({ le: bound }, acc, `${name}_bucket`, shared, null));
      });
      values.push(
        exported({ le: '+Inf' }, series.count, `${name}_bucket`, shared, null),
        exported({}, series.sum, `${name}_sum`, shared, undefined),
        exported({}, series.count, `${name}_count`, shared, undefined),
      );
    }
    return { name, help: this.#help, type: 'histogram', values, aggregator: 'sum' };
  }
}

function notHere(method: string): Error {
  return new Error(`SeriesHistogram: ${method}() is not kept here; observe through series(labels)`);
}

interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/** A sample as prom-client's histogram exports it (its `setValuePair`). */
function exported(
  labels: Record<string, string | number>,
  value: number,
  metricName: string,
  sharedLabels: Readonly<Record<string, string>>,
  exemplar: null | undefined,
): ExportedValue {
  return { labels, sharedLabels, value, metricName, exemplar };
}
