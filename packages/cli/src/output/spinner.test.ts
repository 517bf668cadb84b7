import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { withSpinner } from './spinner.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('withSpinner', () => {
  it('draws nothing for a quick task', async () => {
    const io = createTestIo({ isTTY: true });
    await expect(withSpinner(io, 'Working', async () => 42, { delayMs: 200 })).resolves.toBe(42);
    await wait(250);
    expect(io.spun()).toBe('');
  });

  it('spins on stderr once a task outlasts the delay, and says when it is done', async () => {
    const io = createTestIo({ isTTY: true });
    await withSpinner(io, 'Working', () => wait(300), { delayMs: 20, done: 'Worked' });
    expect(io.spun()).toContain('Working');
    expect(io.spun()).toContain('Worked');
    // Nothing of it on stdout or the prompts' terminal.
    expect(io.out() + io.drawn()).toBe('');
  });

  it('spins when only stderr is a terminal, as with `--json > file`', async () => {
    const io = createTestIo({ isTTY: false, stderrTTY: true });
    await withSpinner(io, 'Working', () => wait(100), { delayMs: 10 });
    expect(io.spun()).toContain('Working');
    expect(io.out()).toBe('');
  });

  it('never draws without a terminal on stderr, and passes failures through', async () => {
    const io = createTestIo({ isTTY: true, stderrTTY: false });
    const failing = withSpinner(io, 'Working', () => Promise.reject(new Error('boom')), {
      delayMs: 0,
    });
    await expect(failing).rejects.toThrow('boom');
    expect(io.spun() + io.drawn() + io.out() + io.err()).toBe('');
  });
});
