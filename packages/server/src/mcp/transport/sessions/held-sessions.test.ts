/**
 * The order of use of the sessions held here (held-sessions.ts), which picks the session a
 * principal at its cap gives up: using the most recently used session again moves nothing
 * (issue 37), and every other use, addition and removal still orders them as before.
 */
import { describe, expect, it } from 'vitest';
import { HeldSessions } from './held-sessions.js';
import type { Session } from './session.js';

function session(id: string, owner = 'user:alice'): Session {
  return { id, owner, inFlight: 0, lastSeen: 0 } as unknown as Session;
}

const ids = (held: HeldSessions) => [...held.values()].map((s) => s.id);

/** Sessions `a`, `b` and `c` of one owner, added in that order. */
function threeHeld(): [HeldSessions, Session, Session, Session] {
  const held = new HeldSessions(undefined);
  const [a, b, c] = [session('a'), session('b'), session('c')];
  held.add(a);
  held.add(b);
  held.add(c);
  return [held, a, b, c];
}

describe('HeldSessions', () => {
  it('keeps the order of last use when the newest session is used again and again', () => {
    const [held, a, b, c] = threeHeld();
    held.used(c);
    held.used(c);
    expect(ids(held)).toEqual(['a', 'b', 'c']);
    expect(held.leastRecentlyUsedIdle('user:alice')).toBe(a);
    held.used(a);
    held.used(a);
    expect(ids(held)).toEqual(['b', 'c', 'a']);
    expect(held.leastRecentlyUsedIdle('user:alice')).toBe(b);
    held.used(b);
    expect(ids(held)).toEqual(['c', 'a', 'b']);
    expect(held.leastRecentlyUsedIdle('user:alice')).toBe(c);
  });

  it('stamps every use, the newest session’s too', () => {
    const held = new HeldSessions(undefined);
    const a = session('a');
    held.add(a);
    held.used(a);
    expect(a.lastSeen).toBeGreaterThan(0);
  });

  it('orders a session used after the newest was removed', () => {
    const [held, a, b, c] = threeHeld();
    held.remove(c);
    held.used(a);
    expect(ids(held)).toEqual(['b', 'a']);
    expect(held.leastRecentlyUsedIdle('user:alice')).toBe(b);
    // The removed session added again is the newest once more.
    held.add(c);
    held.used(b);
    expect(ids(held)).toEqual(['a', 'c', 'b']);
  });

  it('moves a session added again under an id already held when it is next used', () => {
    const held = new HeldSessions(undefined);
    const [a, b] = [session('a'), session('b')];
    held.add(a);
    held.add(b);
    // Held already: it keeps the first one's place, so it is not the newest.
    const again = session('a');
    held.add(again);
    held.used(again);
    expect(ids(held)).toEqual(['b', 'a']);
  });

  it('tells the shared sessions of every use, the newest session’s too', () => {
    const seen: string[] = [];
    const held = new HeldSessions({ seen: (id) => seen.push(id), forget: () => {} });
    const a = session('a');
    held.add(a);
    held.used(a);
    held.used(a);
    expect(seen).toEqual(['a', 'a']);
  });
});
