/** The shared clock of calls' time limits (issue 37): one timer, each limit kept to its time. */
import { describe, expect, it, vi } from 'vitest';
import { DeadlineClock } from './call-timer.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeadlineClock', () => {
  it('calls each limit once its time has passed, earliest first, whatever order they were set in', async () => {
    const clock = new DeadlineClock();
    const fired: { name: string; after: number }[] = [];
    const start = performance.now();
    const mark = (name: string) => () => fired.push({ name, after: performance.now() - start });
    clock.set(mark('late'), 120);
    clock.set(mark('early'), 30);
    clock.set(mark('middle'), 60);
    await sleep(200);
    expect(fired.map((f) => f.name)).toEqual(['early', 'middle', 'late']);
    for (const [index, ms] of [30, 60, 120].entries()) {
      expect(fired[index]?.after).toBeGreaterThanOrEqual(ms - 1);
    }
    expect(clock.size).toBe(0);
  });

  it('never calls a cleared limit, and keeps the others when the earliest is cleared', async () => {
    const clock = new DeadlineClock();
    const fired: string[] = [];
    const first = clock.set(() => fired.push('first'), 20);
    clock.set(() => fired.push('second'), 60);
    const third = clock.set(() => fired.push('third'), 40);
    clock.clear(first);
    clock.clear(third);
    clock.clear(third);
    await sleep(100);
    expect(fired).toEqual(['second']);
    expect(clock.size).toBe(0);
  });

  it('lets a limit set while others expire run to its own time', async () => {
    const clock = new DeadlineClock();
    const fired: string[] = [];
    clock.set(() => {
      fired.push('first');
      clock.set(() => fired.push('set by the first'), 30);
    }, 10);
    await sleep(25);
    expect(fired).toEqual(['first']);
    await sleep(60);
    expect(fired).toEqual(['first', 'set by the first']);
  });

  it('calls every limit that is due when one of them throws, then throws what it threw', async () => {
    const clock = new DeadlineClock();
    const fired: string[] = [];
    const thrown: unknown[] = [];
    const onUncaught = (error: unknown) => thrown.push(error);
    // Thrown from a timer, the error reaches the process; vitest's own handler is set aside.
    const others = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', onUncaught);
    try {
      clock.set(() => fired.push('before'), 10);
      clock.set(() => {
        throw new Error('expire failed');
      }, 10);
      clock.set(() => fired.push('after'), 10);
      await sleep(50);
    } finally {
      process.off('uncaughtException', onUncaught);
      for (const listener of others) process.on('uncaughtException', listener);
    }
    expect(fired).toEqual(['before', 'after']);
    expect(thrown).toEqual([new Error('expire failed')]);
    expect(clock.size).toBe(0);
  });

  it("keeps a limit past setTimeout's longest delay (~24.8 days) without firing it or spinning", async () => {
    // setTimeout takes a longer delay as 1 ms (and warns): the clock then woke every
    // millisecond to find nothing due, for as long as such a call ran.
    const clock = new DeadlineClock();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    let fired = false;
    try {
      const handle = clock.set(() => {
        fired = true;
      }, 40 * 86_400_000);
      await sleep(30);
      clock.clear(handle);
    } finally {
      process.off('warning', onWarning);
    }
    expect(fired).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('calls the limits due in one tick earliest first, not in the order they were set', async () => {
    const clock = new DeadlineClock();
    const fired: string[] = [];
    clock.set(() => fired.push('late'), 20);
    clock.set(() => fired.push('early'), 10);
    // Both are due by the time the timer runs.
    const busyUntil = performance.now() + 30;
    while (performance.now() < busyUntil) {}
    await sleep(10);
    expect(fired).toEqual(['early', 'late']);
  });

  it('keeps thousands of limits in flight: each not cleared expires once, earliest first', async () => {
    const clock = new DeadlineClock();
    const fired: number[] = [];
    const cleared = new Set<number>();
    const handles: unknown[] = [];
    // 3,000 limits within 60 ms in a shuffled order, a third of them cleared before their time.
    const count = 3000;
    const ms = (i: number) => ((i * 7919) % count) / 50;
    for (let i = 0; i < count; i += 1) handles.push(clock.set(() => fired.push(i), ms(i)));
    for (let i = 0; i < count; i += 3) {
      clock.clear(handles[i]);
      cleared.add(i);
    }
    expect(clock.size).toBe(count - cleared.size);
    await vi.waitFor(() => expect(fired).toHaveLength(count - cleared.size), { timeout: 5000 });
    // In the order of their expiry (the handle is the clock's entry), the one set first of a tie.
    const at = (i: number) => (handles[i] as { at: number }).at;
    const expected = [...Array(count).keys()]
      .filter((i) => !cleared.has(i))
      .sort((a, b) => at(a) - at(b) || a - b);
    expect(fired).toEqual(expected);
    expect(clock.size).toBe(0);
  });

  it('looks at only a few of the limits not yet due when one expires', async () => {
    const clock = new DeadlineClock();
    // Long calls' limits, in flight while short ones come and go. The handle is the clock's own
    // entry: a getter on its expiry counts how often the clock reads it.
    let farReads = 0;
    const far = Array.from({ length: 2000 }, () => clock.set(() => {}, 3_600_000));
    for (const handle of far) {
      const at = (handle as { at: number }).at;
      Object.defineProperty(handle, 'at', {
        get: () => {
          farReads += 1;
          return at;
        },
      });
    }
    let expired = 0;
    for (const ms of [5, 10, 15, 20, 25]) clock.set(() => (expired += 1), ms);
    await vi.waitFor(() => expect(expired).toBe(5), { timeout: 5000 });
    // A scan of every limit at each tick reads all 2,000 every time; a heap reads about two a
    // level of its depth (~11) as a limit goes in or out.
    expect(farReads).toBeLessThan(500);
    for (const handle of far) clock.clear(handle);
    expect(clock.size).toBe(0);
  });
});
