/** The stops of the direct calls in flight, linked through themselves (linked-stops.ts). */
import { describe, expect, it } from 'vitest';
import { LinkedStop, LinkedStops } from './linked-stops.js';

describe('LinkedStops', () => {
  it('stops exactly the stops on it, whichever were taken off and in what order', () => {
    const running = new LinkedStops();
    const stops = Array.from({ length: 5 }, () => new LinkedStop());
    for (const stop of stops) running.add(stop);
    // The middle, the newest (first on the list) and the oldest (last) taken off.
    running.delete(stops[2] as LinkedStop);
    running.delete(stops[4] as LinkedStop);
    running.delete(stops[0] as LinkedStop);
    const again = new LinkedStop();
    running.add(again);
    const reasons: unknown[] = [];
    for (const stop of [...stops, again]) stop.onStop((reason) => reasons.push(reason));
    const reason = new Error('The gateway is stopping');
    running.stopAll(reason);
    expect(stops.map((stop) => stop.stopped)).toEqual([false, true, false, true, false]);
    expect(again.stopped).toBe(true);
    expect(reasons).toEqual([reason, reason, reason]);
  });

  it('keeps stopped stops on it until each is taken off, and then stops no more', () => {
    const running = new LinkedStops();
    const first = new LinkedStop();
    const second = new LinkedStop();
    running.add(first);
    running.add(second);
    running.stopAll(new Error('once'));
    running.delete(first);
    running.delete(second);
    const later = new LinkedStop();
    running.add(later);
    running.delete(later);
    running.stopAll(new Error('twice'));
    expect(later.stopped).toBe(false);
    expect(first.previous ?? first.next ?? second.previous ?? second.next).toBeUndefined();
  });
});
