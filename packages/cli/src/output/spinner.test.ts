import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTestIo, type TestIo } from '#test/output/test-io.js';
import { withSpinner } from './spinner.js';

/** A task that lasts until the spinner has drawn `text`. */
function untilSpun(io: TestIo, text: string) {
  return async () => {
    while (!io.spun().includes(text)) await new Promise((resolve) => setTimeout(resolve, 5));
  };
}

describe('withSpinner', () => {
  it('draws nothing for a quick task', async () => {
    // Only the timers are faked: the spinner's delay passes without being waited out.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const io = createTestIo({ isTTY: true });
    await expect(withSpinner(io, 'Working', async () => 42, { delayMs: 200 })).resolves.toBe(42);
    await vi.advanceTimersByTimeAsync(250);
    // A spinner started past the delay would have drawn once its module loaded.
    await import('@clack/prompts');
    await new Promise((resolve) => setImmediate(resolve));
    expect(io.spun()).toBe('');
  });

  it('spins on stderr once a task outlasts the delay, and says when it is done', async () => {
    const io = createTestIo({ isTTY: true });
    await withSpinner(io, 'Working', untilSpun(io, 'Working'), { delayMs: 20, done: 'Worked' });
    expect(io.spun()).toContain('Working');
    expect(io.spun()).toContain('Worked');
    // Nothing of it on stdout or the prompts' terminal.
    expect(io.out() + io.drawn()).toBe('');
  });

  it('spins when only stderr is a terminal, as with `--json > file`', async () => {
    const io = createTestIo({ isTTY: false, stderrTTY: true });
    await withSpinner(io, 'Working', untilSpun(io, 'Working'), { delayMs: 10 });
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
