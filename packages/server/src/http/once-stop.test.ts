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

  it('ends silently: the signal aborts and a waiter rejects, but no listener hears, then or later', async () => {
    const stop = new OnceStop();
    const heard: unknown[] = [];
    stop.onStop((reason) => heard.push(['before', reason]));
    const { signal } = stop;
    const waiting = stop.untilStopped(new Promise<never>(() => {}));
    stop.end('ended');
    stop.stop('stopped after the end');
    stop.onStop((reason) => heard.push(['after', reason]));
    expect(stop.stopped).toBe(true);
    expect(signal.reason).toBe('ended');
    await expect(waiting).rejects.toBe('ended');
    expect(heard).toEqual([]);
    // A stop before the end is the stop: the end changes nothing, and late listeners hear it.
    const stopped = new OnceStop();
    stopped.stop('left');
    stopped.end('ended');
    stopped.onStop((reason) => heard.push(['late', reason]));
    expect(heard).toEqual([['late', 'left']]);
  });

  it('tells every listener when one throws, handing what it threw to listenerFailed', () => {
    const failures: unknown[] = [];
    const stop = new OnceStop((error) => failures.push(error));
    const heard: unknown[] = [];
    const thrown = new Error('listener bug');
    stop.onStop(() => {
      throw thrown;
    });
    stop.onStop((reason) => heard.push(reason));
    expect(() => stop.stop('left')).not.toThrow();
    expect(heard).toEqual(['left']);
    stop.onStop(() => {
      throw thrown;
    });
    expect(failures).toEqual([thrown, thrown]);
  });

  it('throws the first failure once every listener heard, without listenerFailed', () => {
    const stop = new OnceStop();
    const heard: unknown[] = [];
    stop.onStop(() => {
      throw new Error('first');
    });
    stop.onStop(() => {
      throw new Error('second');
    });
    stop.onStop((reason) => heard.push(reason));
    expect(() => stop.stop('left')).toThrow('first');
    expect(heard).toEqual(['left']);
  });

  it('settles untilStopped with the work, or rejects with the reason once stopped', async () => {
    const stop = new OnceStop();
    await expect(stop.untilStopped(Promise.resolve('done'))).resolves.toBe('done');
    await expect(stop.untilStopped(Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    const waiting = stop.untilStopped(new Promise<never>(() => {}));
    stop.stop('timeout');
    await expect(waiting).rejects.toBe('timeout');
    // Once stopped, at once; the work's late failure is not left unhandled.
    await expect(stop.untilStopped(Promise.reject(new Error('late')))).rejects.toBe('timeout');
  });

  it('rejects every untilStopped waiting at once, and forgets those whose work settled', async () => {
    const stop = new OnceStop();
    const never = () => new Promise<never>(() => {});
    let finish: (value: string) => void = () => {};
    const first = stop.untilStopped(never());
    const done = stop.untilStopped(new Promise<string>((resolve) => (finish = resolve)));
    const third = stop.untilStopped(never());
    finish('done');
    await expect(done).resolves.toBe('done');
    stop.end('ended');
    await expect(first).rejects.toBe('ended');
    await expect(third).rejects.toBe('ended');
  });

  it('is told once of a stop or an end asked while it stops, and tells one listening then at once', () => {
    const stop = new OnceStop();
    const heard: unknown[] = [];
    stop.onStop((reason) => {
      heard.push(['a', reason]);
      stop.stop('inner');
      stop.end('ended');
      stop.onStop((late) => heard.push(['late', late]));
    });
    const stopListening = stop.onStop((reason) => {
      heard.push(['b', reason]);
      stopListening();
    });
    stop.stop('outer');
    expect(heard).toEqual([
      ['a', 'outer'],
      ['late', 'outer'],
      ['b', 'outer'],
    ]);
    expect(stop.signal.reason).toBe('outer');
  });
});
