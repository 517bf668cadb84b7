/**
 * Where `gateway-server` keeps Node's compile cache (issue 37): in the user's own cache directory
 * on each platform, never the temporary directory all users share. bin.test.ts checks that a real
 * start writes it there after its first answer.
 */
import { describe, expect, it } from 'vitest';
import { compileCacheDirectory } from './compile-cache.js';

describe('compileCacheDirectory', () => {
  it('is under ~/.cache on Linux, or $XDG_CACHE_HOME when that is absolute', () => {
    expect(compileCacheDirectory({}, 'linux', '/home/gw')).toBe(
      '/home/gw/.cache/gateway-server/node-compile-cache',
    );
    expect(compileCacheDirectory({ XDG_CACHE_HOME: '/var/cache/gw' }, 'linux', '/home/gw')).toBe(
      '/var/cache/gw/gateway-server/node-compile-cache',
    );
    // The XDG spec says to ignore a relative path.
    expect(compileCacheDirectory({ XDG_CACHE_HOME: 'cache' }, 'linux', '/home/gw')).toBe(
      '/home/gw/.cache/gateway-server/node-compile-cache',
    );
  });

  it('is under ~/Library/Caches on macOS', () => {
    expect(compileCacheDirectory({}, 'darwin', '/Users/gw')).toBe(
      '/Users/gw/Library/Caches/gateway-server/node-compile-cache',
    );
  });

  it("is none without a home directory of the user's own, rather than a shared one", () => {
    expect(compileCacheDirectory({}, 'linux', '')).toBeUndefined();
    expect(compileCacheDirectory({}, 'linux', 'relative/home')).toBeUndefined();
    expect(compileCacheDirectory({}, 'darwin', '')).toBeUndefined();
    expect(compileCacheDirectory({}, 'win32', 'C:\\Users\\gw')).toBeUndefined();
  });

  it('is under %LOCALAPPDATA% on Windows', () => {
    const env = { LOCALAPPDATA: 'C:\\Users\\gw\\AppData\\Local' };
    expect(compileCacheDirectory(env, 'win32', 'C:\\Users\\gw')).toBe(
      'C:\\Users\\gw\\AppData\\Local\\gateway-server\\node-compile-cache',
    );
  });
});
