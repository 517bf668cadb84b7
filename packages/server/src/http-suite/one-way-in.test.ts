/**
 * Issue 13: no route, page or form reads identity, admin-ness or origin any other way than
 * through the front door (`http/guard.ts`) and `authenticate()` (`identity/`). A scan of the
 * server's sources keeps it so: each pattern below may appear only in the files listed for it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

const rules: { what: string; pattern: RegExp; allowedIn: string[] }[] = [
  {
    what: 'the Authorization header',
    pattern: /header\(\s*['"]authorization['"]\s*\)|headers\.get\(\s*['"]authorization['"]\s*\)/i,
    allowedIn: ['identity/authenticate.ts', 'http/guard.ts'],
  },
  {
    what: 'the Origin header',
    pattern: /header\(\s*['"]origin['"]\s*\)|headers\.get\(\s*['"]origin['"]\s*\)/i,
    allowedIn: ['http/guard.ts'],
  },
  {
    what: 'the Host header',
    pattern: /header\(\s*['"]host['"]\s*\)|headers\.get\(\s*['"]host['"]\s*\)/i,
    allowedIn: ['http/guard.ts'],
  },
  {
    what: 'Sec-Fetch-Site',
    pattern: /sec-fetch-site/i,
    allowedIn: ['http/guard.ts'],
  },
  {
    what: "better-auth's session lookup",
    pattern: /\.getSession\(|getSessionFromCtx\(|sessionResolver\(/,
    allowedIn: ['auth/create-auth.ts'],
  },
  {
    what: 'admin-ness decided from a role id',
    // A user's role compared with the admin role (`role.id === ADMIN_ROLE_ID`, which guards the
    // role itself against deletion, is not admin-ness).
    pattern:
      /role_?[iI]d\s*===\s*(?:ADMIN_ROLE_ID|['"]admin['"])|ADMIN_ROLE_ID\s*===\s*\w*role_?[iI]d/,
    allowedIn: ['identity/principal.ts'],
  },
  {
    what: 'a token looked up by its hash',
    pattern: /\.where\(\s*['"](?:[a-z_]+\.)?token_hash['"]/,
    allowedIn: [
      'identity/token-repository.ts',
      // The statements token-repository.ts runs, built by the owners of their tables (issue 36).
      'mcp-endpoints/token-query.ts',
      'mcp-oauth/token-query.ts',
      // Consuming a sign-up invite by its hash: an invite is not a credential of a request.
      'invites/store.ts',
      // Redeeming or revoking an OAuth refresh token at the token or revocation endpoint: a
      // credential of that OAuth request, not of a request to the API or MCP.
      'mcp-oauth/grants.ts',
      // Doc comments showing how a prepared query or a token hash is used.
      'db/prepared-query.ts',
      'secrets/tokens.ts',
    ],
  },
];

describe('one way in (issue 13)', () => {
  const files = sources(SRC).map((path) => ({
    path: relative(SRC, path).split('\\').join('/'),
    text: readFileSync(path, 'utf8'),
  }));

  it('scans the server sources', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((file) => file.path === 'identity/authenticate.ts')).toBe(true);
  });

  for (const rule of rules) {
    it(`reads ${rule.what} only in ${rule.allowedIn.join(', ')}`, () => {
      const offenders = files
        .filter((file) => rule.pattern.test(file.text))
        .map((file) => file.path)
        .filter((path) => !rule.allowedIn.includes(path));
      expect(offenders).toEqual([]);
    });
  }
});
