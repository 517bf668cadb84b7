/**
 * The one timer that keeps the gathering time of every session call (issue 37, gather-clock.ts):
 * each wait expires after the clock's time, in the order they began, unless stopped first.
 */
import { describe, expect, it } from 'vitest';
import { GatherClock } from './gather-clock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds, or 2 s have passed; a loaded machine fires timers late. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i += 1) await sleep(10);
}

describe('GatherClock', () => {
  it('calls each wait once its time has passed from when it began, oldest first', async () => {
    const clock = new GatherClock(30);
    const expired: { name: string; after: number }[] = [];
    const wait = (name: string) => {
      const at = performance.now();
      clock.after(() => expired.push({ name, after: performance.now() - at }));
    };
    wait('first');
    await sleep(12);
    wait('second');
    await sleep(12);
    wait('third');
    await until(() => expired.length === 3);
    expect(expired.map((wait) => wait.name)).toEqual(['first', 'second', 'third']);
    // Each one's own time, not the first one's: the later ones were not cut short.
    for (const wait of expired) expect(wait.after).toBeGreaterThanOrEqual(29.9);
    expect(clock.size).toBe(0);
  });

  it('does not call a wait stopped before its time, and stopping it late does nothing', async () => {
    const clock = new GatherClock(20);
    const expired: string[] = [];
    const stopFirst = clock.after(() => expired.push('first'));
    const stopSecond = clock.after(() => expired.push('second'));
    stopFirst();
    expect(clock.size).toBe(1);
    await until(() => expired.length > 0);
    await sleep(30); // a stopped wait would have expired by now too
    expect(expired).toEqual(['second']);
    stopSecond();
    stopFirst();
    expect(clock.size).toBe(0);
    // The clock starts again for a wait after it went idle.
    clock.after(() => expired.push('third'));
    await until(() => expired.length > 1);
    expect(expired).toEqual(['second', 'third']);
  });

  it('counts a wait from the time its caller gives (when the call began), not from now', async () => {
    const clock = new GatherClock(40);
    const began = performance.now() - 30;
    let after = -1;
    clock.after(() => {
      after = performance.now() - began;
    }, began);
    await until(() => after >= 0);
    // 40 ms from when it began: 10 ms from now, where a wait from now would take 40.
    expect(after).toBeGreaterThanOrEqual(39.9);
    expect(performance.now() - began).toBeLessThan(30 + 40 + 2000);
    const fromNow = performance.now();
    let waited = -1;
    clock.after(() => {
      waited = performance.now() - fromNow;
    });
    await until(() => waited >= 0);
    expect(waited).toBeGreaterThanOrEqual(39.9);
  });

  it('lets a wait stopped between others go, and keeps the rest in their order', async () => {
    const clock = new GatherClock(20);
    const expired: string[] = [];
    const stops = ['first', 'second', 'third', 'fourth'].map((name) =>
      clock.after(() => expired.push(name)),
    );
    stops[1]?.();
    stops[3]?.();
    stops[1]?.();
    expect(clock.size).toBe(2);
    await until(() => expired.length === 2);
    expect(expired).toEqual(['first', 'third']);
    expect(clock.size).toBe(0);
    // A wait begun while an expired one is heard waits its own time.
    const late: string[] = [];
    clock.after(() => {
      late.push('heard');
      clock.after(() => late.push('begun then'));
    });
    await until(() => late.length === 2);
    expect(late).toEqual(['heard', 'begun then']);
  });
});
