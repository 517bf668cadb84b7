import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../http/logger.js';
import { Redactor } from '../http/redact.js';
import { createRefusalLog } from './refusal-log.js';

function logged() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    new Redactor(),
  );
  return { lines, logger };
}

afterEach(() => {
  vi.useRealTimers();
});

// A hostile upstream decides how many requests it sends outside any call.
describe('createRefusalLog', () => {
  it('logs the first refusal of a method at once and the count of the rest at the window end', () => {
    vi.useFakeTimers();
    const { lines, logger } = logged();
    const refusals = createRefusalLog(logger, 'up', { windowMs: 1000 });
    for (let i = 0; i < 1000; i += 1) refusals.refused('elicitation/create');
    refusals.refused('sampling/createMessage');
    expect(lines).toEqual([
      expect.objectContaining({ sourceId: 'up', method: 'elicitation/create' }),
      expect.objectContaining({ sourceId: 'up', method: 'sampling/createMessage' }),
    ]);
    vi.advanceTimersByTime(1000);
    expect(lines.slice(2)).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'upstream requests refused: they belong to no call in progress',
        sourceId: 'up',
        method: 'elicitation/create',
        count: 999,
        withinSeconds: 1,
      }),
    ]);
    // A new window: the next refusal is logged at once again.
    refusals.refused('elicitation/create');
    expect(lines).toHaveLength(4);
    expect(lines[3]).not.toHaveProperty('count');
  });

  it('logs the counts not logged yet when the source is removed, and nothing after', () => {
    const { lines, logger } = logged();
    const refusals = createRefusalLog(logger, 'up');
    refusals.refused('elicitation/create');
    refusals.refused('elicitation/create');
    refusals.close();
    expect(lines.map((line) => line.count)).toEqual([undefined, 1]);
    refusals.close();
    expect(lines).toHaveLength(2);
  });
});
