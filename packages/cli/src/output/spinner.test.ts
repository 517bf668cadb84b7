import { describe, expect, it } from 'vitest';
import { withSpinner } from './spinner.js';
import { createTestIo } from './test-io.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withSpinner', () => {
  it('draws nothing for a quick task', async () => {
    const io = createTestIo({ isTTY: true });
    await expect(withSpinner(io, 'Working', async () => 42, { delayMs: 200 })).resolves.toBe(42);
    await wait(250);
    expect(io.drawn()).toBe('');
  });

  it('spins once a task outlasts the delay, and says when it is done', async () => {
    const io = createTestIo({ isTTY: true });
    await withSpinner(io, 'Working', () => wait(300), { delayMs: 20, done: 'Worked' });
    expect(io.drawn()).toContain('Working');
    expect(io.drawn()).toContain('Worked');
  });

  it('never draws without a terminal, and passes failures through', async () => {
    const io = createTestIo();
    const failing = withSpinner(io, 'Working', () => Promise.reject(new Error('boom')), {
      delayMs: 0,
    });
    await expect(failing).rejects.toThrow('boom');
    expect(io.drawn() + io.out() + io.err()).toBe('');
  });
});
