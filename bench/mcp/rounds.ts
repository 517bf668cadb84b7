/**
 * How the MCP benchmark compares targets (issue 37): each round measures every side of a case in
 * short alternating slices, the order mirrored from one slice to the next (A B B A A B ...; with
 * three sides A B C C B A ...) and from one round to the next, so whatever the shared machine
 * does meanwhile falls on every side alike. A side's figures for a round are those of its slices
 * together (their calls over their summed time, their latencies pooled); a ratio is taken within
 * each round and given as its median over rounds with its spread (lowest to highest).
 */

/** One stretch of calls of one side: what was timed and what the measured processes spent. */
export interface Stretch {
  calls: number;
  seconds: number;
  latencies: number[];
  /** CPU time (µs) of each process measured over the stretch, in the order its side reads them. */
  cpu: number[];
}

/** A side's figures for a round (or a warm-up). */
export interface Run {
  callsPerSecond: number;
  p50: number;
  p99: number;
  /** CPU time (µs) per call of each process measured, in the order its side reads them. */
  cpuPerCall: number[];
}

/**
 * A target as a case measures it: `open` makes what a round's slices share (an HTTP agent's
 * kept-alive connections, 2025 sessions), so a slice is calls only, as a whole stretch was.
 */
export interface Side {
  name: string;
  open(concurrency: number): Promise<Opened>;
}

/** A side opened for a round: `slice` makes `calls` calls at the concurrency it was opened with. */
export interface Opened {
  slice(calls: number): Promise<Stretch>;
  close(): Promise<void>;
}

/**
 * Slices per side in a round (`BENCH_SLICES`, default 8). `BENCH_SLICES=1` measures each side in
 * one stretch, back to back, the order alternating by round: the method before this one, kept
 * to read the noise floor both ways (`BENCH_AA=1`).
 */
export const SLICES = Math.max(1, Number(process.env.BENCH_SLICES ?? 8));

/** A side's figures from its stretches together: their calls over their summed time. */
export function summarize(stretches: Stretch[]): Run {
  const calls = stretches.reduce((sum, stretch) => sum + stretch.calls, 0);
  const seconds = stretches.reduce((sum, stretch) => sum + stretch.seconds, 0);
  const latencies = stretches.flatMap((stretch) => stretch.latencies).sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? 0;
  const processes = Math.max(0, ...stretches.map((stretch) => stretch.cpu.length));
  const cpuPerCall = Array.from(
    { length: processes },
    (_, i) => stretches.reduce((sum, stretch) => sum + (stretch.cpu[i] ?? 0), 0) / calls,
  );
  return { callsPerSecond: calls / seconds, p50: at(0.5), p99: at(0.99), cpuPerCall };
}

/** `calls` calls of `side` at `concurrency`, in one stretch (warm-up, memory). */
export async function stretchOf(side: Side, concurrency: number, calls: number): Promise<Run> {
  const opened = await side.open(concurrency);
  try {
    return summarize([await opened.slice(calls)]);
  } finally {
    await opened.close();
  }
}

/**
 * `rounds` rounds of `calls` calls a side, each side's calls in `SLICES` slices interleaved with
 * the others' as the module's comment says; per round, each side's figures in `sides`' order.
 */
export async function measureRounds(
  sides: Side[],
  concurrency: number,
  calls: number,
  rounds: number,
  slicesPerSide = SLICES,
): Promise<Run[][]> {
  const slices = Math.min(slicesPerSide, calls);
  const sliceCalls = (k: number) =>
    Math.floor((calls * (k + 1)) / slices) - Math.floor((calls * k) / slices);
  const results: Run[][] = [];
  for (let round = 0; round < rounds; round += 1) {
    const opened: Opened[] = [];
    try {
      for (const side of sides) opened.push(await side.open(concurrency));
      const stretches: Stretch[][] = sides.map(() => []);
      for (let k = 0; k < slices; k += 1) {
        const indexes = sides.map((_, i) => i);
        if ((round + k) % 2 === 1) indexes.reverse();
        for (const i of indexes) {
          stretches[i]?.push(await (opened[i] as Opened).slice(sliceCalls(k)));
        }
      }
      results.push(stretches.map(summarize));
    } finally {
      await Promise.all(opened.map((side) => side.close()));
    }
  }
  return results;
}

/** The most calls a side makes in one warm-up slice before the next side's turn. */
const WARM_SLICE_CALLS = 1000;

/**
 * Every side warmed alike: `calls` calls each at `concurrency`, in slices of at most
 * {@link WARM_SLICE_CALLS} interleaved as a round's are. Warmed one after another, the first
 * sides of a long warm-up sat idle while the others warmed; once a process idles, V8's memory
 * reducer may run a memory-reducing GC that frees the maps of objects no longer alive, and every
 * optimized function that embedded one is deoptimized, so the side began its rounds colder than
 * it ended its warm-up (README.md, `idle45`). Interleaved, no side idles longer than the others'
 * turns.
 */
export async function warm(sides: Side[], concurrency: number, calls: number): Promise<void> {
  await measureRounds(
    sides,
    concurrency,
    calls,
    1,
    Math.max(SLICES, Math.ceil(calls / WARM_SLICE_CALLS)),
  );
}

/** Values' median, lowest and highest. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] ?? 0)
      : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return { median, min: sorted[0] ?? 0, max: sorted[sorted.length - 1] ?? 0 };
}

/** `0.74 (0.70 to 0.78)`: a ratio's median over rounds, its lowest and highest in brackets. */
export function withSpread(values: number[], digits = 2): string {
  const { median, min, max } = spread(values);
  return `${median.toFixed(digits)} (${min.toFixed(digits)} to ${max.toFixed(digits)})`;
}
