/** How an upstream is doing, as the registry list and the admin pages show it. */
export interface UpstreamHealth {
  /** `degraded`: calls fail fast until `retryAt`; `ok` otherwise. */
  state: 'ok' | 'degraded';
  /** Failures in a row (connecting, HTTP errors, malformed answers, time limits). */
  failures: number;
  /** The last failure's reason (no secrets: the gateway's own words). */
  lastError: string | null;
  /** ISO 8601: when a degraded upstream is tried again. */
  retryAt: string | null;
}

/**
 * Backs off an upstream that keeps failing: after `threshold` failures in a row, calls fail at
 * once (without a connection attempt) for `cooldownMs`, doubling up to `maxCooldownMs` while
 * the trial call after each pause fails too. One success closes it. Other upstreams are not
 * touched: each has its own breaker.
 */
export class CircuitBreaker {
  readonly #threshold: number;
  readonly #baseCooldownMs: number;
  readonly #maxCooldownMs: number;
  #failures = 0;
  #cooldownMs: number;
  #openUntil = 0;
  #trialRunning = false;
  #lastError: string | null = null;

  constructor(options: { threshold?: number; cooldownMs?: number; maxCooldownMs?: number } = {}) {
    this.#threshold = options.threshold ?? 5;
    this.#baseCooldownMs = options.cooldownMs ?? 30_000;
    this.#maxCooldownMs = options.maxCooldownMs ?? 300_000;
    this.#cooldownMs = this.#baseCooldownMs;
  }

  /** Undefined when a call may go ahead; else the seconds until the upstream is tried again. */
  refusal(now = Date.now()): number | undefined {
    if (this.#failures < this.#threshold) return undefined;
    if (now < this.#openUntil) return Math.ceil((this.#openUntil - now) / 1000);
    // Half open: one trial call at a time; the others still fail fast.
    if (this.#trialRunning) return Math.ceil(this.#cooldownMs / 1000);
    this.#trialRunning = true;
    return undefined;
  }

  success(): void {
    this.#failures = 0;
    this.#trialRunning = false;
    this.#cooldownMs = this.#baseCooldownMs;
    this.#openUntil = 0;
  }

  /** A call that ended without saying anything about the upstream (the caller went away). */
  abandon(): void {
    this.#trialRunning = false;
  }

  failure(reason: string, now = Date.now()): void {
    this.#lastError = reason;
    this.#failures += 1;
    if (this.#failures < this.#threshold) return;
    if (this.#trialRunning) this.#cooldownMs = Math.min(this.#cooldownMs * 2, this.#maxCooldownMs);
    this.#trialRunning = false;
    this.#openUntil = now + this.#cooldownMs;
  }

  health(now = Date.now()): UpstreamHealth {
    const degraded = this.#failures >= this.#threshold;
    return {
      state: degraded ? 'degraded' : 'ok',
      failures: this.#failures,
      lastError: this.#lastError,
      retryAt: degraded ? new Date(Math.max(this.#openUntil, now)).toISOString() : null,
    };
  }
}
