import { describe, expect, it } from 'vitest';
import { TimeLimit } from './time-limit.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('TimeLimit', () => {
  it('fires once the running time reaches the limit, not counting paused time', async () => {
    let fired = 0;
    const limit = new TimeLimit(80, () => {
      fired += 1;
    });
    await sleep(40);
    limit.pause();
    await sleep(120);
    expect(fired).toBe(0);
    limit.resume();
    await sleep(20);
    expect(fired).toBe(0);
    await sleep(60);
    expect(fired).toBe(1);
  });

  it('nests pauses and never fires once cleared', async () => {
    let fired = 0;
    const limit = new TimeLimit(30, () => {
      fired += 1;
    });
    limit.pause();
    limit.pause();
    limit.resume();
    await sleep(60);
    expect(fired).toBe(0);
    limit.clear();
    limit.resume();
    await sleep(60);
    expect(fired).toBe(0);
  });
});
