import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualCallTimer } from '#test/mcp/manual-call-timer.js';
import { TimeLimit } from './time-limit.js';

// The clock is vitest's: the limit's timer and its reading of the running time move only when
// the test says, so a loaded machine cannot make a pause look longer than it was.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('TimeLimit', () => {
  it('fires once the running time reaches the limit, not counting paused time', () => {
    let fired = 0;
    const limit = new TimeLimit(80, () => {
      fired += 1;
    });
    vi.advanceTimersByTime(40);
    limit.pause();
    vi.advanceTimersByTime(120);
    expect(fired).toBe(0);
    limit.resume();
    vi.advanceTimersByTime(39);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect(fired).toBe(1);
  });

  it('nests pauses and never fires once cleared', () => {
    let fired = 0;
    const limit = new TimeLimit(30, () => {
      fired += 1;
    });
    limit.pause();
    limit.pause();
    limit.resume();
    vi.advanceTimersByTime(60);
    expect(fired).toBe(0);
    limit.clear();
    limit.resume();
    vi.advanceTimersByTime(60);
    expect(fired).toBe(0);
  });

  it('keeps the time run before a pause', () => {
    let fired = 0;
    const limit = new TimeLimit(30, () => {
      fired += 1;
    });
    vi.advanceTimersByTime(29);
    limit.pause();
    limit.resume();
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
  });

  it('runs on the timer it is given, armed again with the time left after a pause', () => {
    const timer = new ManualCallTimer();
    let fired = 0;
    const limit = new TimeLimit(
      80,
      () => {
        fired += 1;
      },
      timer,
    );
    expect(timer.armed).toEqual([80]);
    vi.advanceTimersByTime(30);
    limit.pause();
    expect(timer.armed).toEqual([]);
    limit.resume();
    expect(timer.armed).toEqual([50]);
    timer.expireAll();
    expect(fired).toBe(1);
    limit.clear();
    expect(timer.armed).toEqual([]);
  });
});
