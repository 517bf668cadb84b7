import { describe, expect, it } from 'vitest';
import { OnceStop } from './once-stop.js';

describe('OnceStop', () => {
  it('tells each listener once, with the first reason, and a listener that stopped listening never', () => {
    const stop = new OnceStop();
    const heard: unknown[] = [];
    stop.onStop((reason) => heard.push(['a', reason]));
    const stopListening = stop.onStop((reason) => heard.push(['b', reason]));
    stopListening();
    expect(stop.stopped).toBe(false);
    stop.stop('left');
    stop.stop('again');
    expect(stop.stopped).toBe(true);
    expect(heard).toEqual([['a', 'left']]);
    // One that listens after the stop hears it at once.
    stop.onStop((reason) => heard.push(['c', reason]));
    expect(heard).toEqual([
      ['a', 'left'],
      ['c', 'left'],
    ]);
  });

  it('makes its signal when read: aborted with the reason, whether read before or after', () => {
    const early = new OnceStop();
    const { signal } = early;
    expect(signal.aborted).toBe(false);
    const reason = new Error('The gateway is stopping');
    early.stop(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);

    const late = new OnceStop();
    late.stop('left');
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe('left');
  });
});
