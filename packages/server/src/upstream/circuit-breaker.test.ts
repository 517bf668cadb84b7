import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

describe('CircuitBreaker', () => {
  it('opens after the threshold, lets one trial through after the pause, and doubles it', () => {
    const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 1000, maxCooldownMs: 3000 });
    expect(breaker.refusal(0)).toBeUndefined();
    breaker.failure('refused', 0);
    breaker.failure('refused', 0);
    expect(breaker.health(0)).toMatchObject({
      state: 'degraded',
      failures: 2,
      lastError: 'refused',
    });
    expect(breaker.refusal(500)).toBe(1);
    // The pause is over: one trial, the others still wait.
    expect(breaker.refusal(1000)).toBeUndefined();
    expect(breaker.refusal(1000)).toBe(1);
    breaker.failure('still refused', 1000);
    expect(breaker.refusal(2999)).toBe(1);
    expect(breaker.refusal(3000)).toBeUndefined();
    breaker.success();
    expect(breaker.health(3000)).toMatchObject({ state: 'ok', failures: 0 });
    expect(breaker.refusal(3000)).toBeUndefined();
  });

  it('does not stay half open when the trial call is abandoned', () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 1000 });
    breaker.failure('down', 0);
    expect(breaker.refusal(1000)).toBeUndefined();
    breaker.abandon();
    expect(breaker.refusal(1000)).toBeUndefined();
  });
});
