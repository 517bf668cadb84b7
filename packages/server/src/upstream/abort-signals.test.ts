import { describe, expect, it } from 'vitest';
import { signalOf, stopOf } from './abort-signals.js';

// Issue 37: an upstream request hears its call's stop without a signal made for every call.
describe('stopOf', () => {
  it("tells a listener the signal's reason once, at once when it was aborted already", () => {
    const controller = new AbortController();
    const heard: unknown[] = [];
    stopOf(controller.signal).onStop((reason) => heard.push(reason));
    controller.abort('first');
    controller.abort('again');
    expect(heard).toEqual(['first']);
    stopOf(controller.signal).onStop((reason) => heard.push(reason));
    expect(heard).toEqual(['first', 'first']);
  });

  it('tells nothing once the listener is off', () => {
    const controller = new AbortController();
    const heard: unknown[] = [];
    const off = stopOf(controller.signal).onStop((reason) => heard.push(reason));
    off();
    controller.abort('late');
    expect(heard).toEqual([]);
  });
});

describe('signalOf', () => {
  it('aborts its signal with the reason of the stop, and not after off', () => {
    const listeners: ((reason: unknown) => void)[] = [];
    const source = {
      onStop(listener: (reason: unknown) => void) {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    };
    const stopped = signalOf(source);
    for (const listener of [...listeners]) listener('timeout');
    expect(stopped.signal.reason).toBe('timeout');
    const kept = signalOf(source);
    kept.off();
    expect(listeners).toHaveLength(1);
    expect(kept.signal.aborted).toBe(false);
  });
});
