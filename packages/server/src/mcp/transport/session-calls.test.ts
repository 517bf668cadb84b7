/**
 * The calls a 2025 session runs without its transport (session-calls.ts): one call in its own
 * slot, the calls beside it in a map (issue 37). Each is found by its id whichever place it holds.
 */
import { describe, expect, it } from 'vitest';
import { OnceStop } from '../../http/once-stop.js';
import { SessionCalls } from './session-calls.js';

/** A stop that notes its reason. */
function noted(): { stop: OnceStop; reasons: unknown[] } {
  const stop = new OnceStop();
  const reasons: unknown[] = [];
  stop.onStop((reason) => reasons.push(reason));
  return { stop, reasons };
}

describe('SessionCalls', () => {
  it('cancels each running call by its id, the first and those beside it', () => {
    const calls = new SessionCalls();
    const first = noted();
    const second = noted();
    const third = noted();
    expect(calls.add(1, first.stop)).toBe(true);
    expect(calls.add('two', second.stop)).toBe(true);
    expect(calls.add(3, third.stop)).toBe(true);
    calls.cancel('two', 'second');
    calls.cancel(1, 'first');
    calls.cancel('1', 'not a running id');
    calls.cancel(undefined, 'no id');
    expect(first.reasons).toEqual(['first']);
    expect(second.reasons).toEqual(['second']);
    expect(third.reasons).toEqual([]);
  });

  it('refuses an id that runs, wherever it is held, and takes it again once its call ended', () => {
    const calls = new SessionCalls();
    const first = noted();
    const second = noted();
    expect(calls.add(1, first.stop)).toBe(true);
    expect(calls.add(2, second.stop)).toBe(true);
    expect(calls.add(1, new OnceStop())).toBe(false);
    expect(calls.add(2, new OnceStop())).toBe(false);
    // Another call's stop under the same id ends nothing.
    calls.delete(1, second.stop);
    calls.delete(2, first.stop);
    expect(calls.add(1, new OnceStop())).toBe(false);
    expect(calls.add(2, new OnceStop())).toBe(false);
    calls.delete(1, first.stop);
    calls.delete(2, second.stop);
    const again = noted();
    const beside = noted();
    expect(calls.add(2, again.stop)).toBe(true);
    expect(calls.add(1, beside.stop)).toBe(true);
    calls.cancel(2, 'again');
    calls.cancel(1, 'beside');
    expect(again.reasons).toEqual(['again']);
    expect(beside.reasons).toEqual(['beside']);
    // An ended call is not stopped by a late cancel.
    expect(first.reasons).toEqual([]);
    calls.cancel(1, 'late');
    expect(first.reasons).toEqual([]);
  });

  it('stops every running call when the session closes, and forgets them', () => {
    const calls = new SessionCalls();
    const first = noted();
    const second = noted();
    calls.add('a', first.stop);
    calls.add('b', second.stop);
    calls.stopAll();
    expect(first.stop.stopped && second.stop.stopped).toBe(true);
    expect(String(first.reasons[0])).toContain('The session was closed');
    expect(String(second.reasons[0])).toContain('The session was closed');
    expect(calls.add('a', new OnceStop())).toBe(true);
    expect(calls.add('b', new OnceStop())).toBe(true);
  });
});
