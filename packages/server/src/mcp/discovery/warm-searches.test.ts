/**
 * Discovery search indexes built in the background after a change (issue 33), so the first search
 * after a tool is registered or a role edited does not build its index inside the call.
 */
import { describe, expect, it } from 'vitest';
import type { McpPrincipal } from '../principal.js';
import { SearchWarmer } from './warm-searches.js';

function caller(userId: string, endpointId: string): McpPrincipal {
  return { kind: 'user', userId, roleId: 'reader', isAdmin: false, via: 'mcp_token', endpointId };
}

/** A warmer whose callers stay in discovery mode unless listed in `leaving`; records each build. */
function recording(leaving: ReadonlySet<string> = new Set()) {
  const built: string[] = [];
  const warmer = new SearchWarmer(async (principal) => {
    const key = principal.kind === 'user' ? `${principal.userId}/${principal.endpointId}` : '';
    built.push(key);
    return !leaving.has(key);
  });
  return { warmer, built };
}

describe('SearchWarmer', () => {
  it('builds each remembered caller once for a burst of changes, and nothing with no change', async () => {
    const { warmer, built } = recording();
    warmer.remember(caller('ada', 'e1'));
    warmer.remember(caller('ada', 'e2'));
    warmer.remember(caller('bob', 'e3'));
    // Seen again: remembered once.
    warmer.remember(caller('ada', 'e1'));
    await warmer.idle();
    expect(built).toEqual([]);

    for (let i = 0; i < 5; i++) warmer.changed();
    await warmer.idle();
    expect(built.sort()).toEqual(['ada/e1', 'ada/e2', 'bob/e3']);
  });

  it('forgets a caller no longer in discovery mode, and builds nothing once stopped', async () => {
    const { warmer, built } = recording(new Set(['ada/e2']));
    warmer.remember(caller('ada', 'e1'));
    warmer.remember(caller('ada', 'e2'));
    warmer.changed();
    await warmer.idle();
    expect(built.sort()).toEqual(['ada/e1', 'ada/e2']);

    built.length = 0;
    warmer.changed();
    await warmer.idle();
    expect(built).toEqual(['ada/e1']);

    built.length = 0;
    warmer.stop();
    warmer.changed();
    await warmer.idle();
    expect(built).toEqual([]);
  });

  it('forgets a caller that can no longer be resolved', async () => {
    const built: string[] = [];
    const warmer = new SearchWarmer(async (principal) => {
      built.push(principal.kind === 'user' ? principal.userId : '');
      throw new Error('user deleted');
    });
    warmer.remember(caller('gone', 'e1'));
    warmer.changed();
    await warmer.idle();
    warmer.changed();
    await warmer.idle();
    expect(built).toEqual(['gone']);
  });
});
