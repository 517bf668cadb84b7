import { describe, expect, it } from 'vitest';
import { createTestIo } from '#test/output/test-io.js';
import { createColors, isColorEnabled } from './color.js';

describe('isColorEnabled', () => {
  it.each([
    [{ isTTY: true, env: { NO_COLOR: undefined } }, true],
    [{ isTTY: false, env: { NO_COLOR: undefined } }, false],
    [{ isTTY: true, env: { NO_COLOR: '1' } }, false],
    // https://no-color.org: an empty NO_COLOR does not count.
    [{ isTTY: true, env: { NO_COLOR: '' } }, true],
    [{ isTTY: true, env: { NO_COLOR: '1', FORCE_COLOR: '1' } }, false],
    [{ isTTY: false, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } }, true],
    [{ isTTY: true, env: { NO_COLOR: undefined, FORCE_COLOR: '0' } }, false],
    [{ isTTY: true, env: { NO_COLOR: undefined, TERM: 'dumb' } }, false],
  ])('%j -> %s', (options, enabled) => {
    const io = createTestIo({ ...options, env: { TERM: 'xterm', ...options.env } });
    expect(isColorEnabled(io)).toBe(enabled);
    expect(createColors(io).red('x') !== 'x').toBe(enabled);
  });
});
