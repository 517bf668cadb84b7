/**
 * Domain errors are mapped once (issue 36): a service refuses with a `Refusal`
 * (`errors/refusal.ts`, a code catalogue), and only the HTTP layer turns it into an answer
 * (`httpErrorOf` in `http/route.ts`; the MCP call pipeline has its own mapping). So an
 * `HttpError` is constructed in two places only:
 *
 * - **`http/`**, the HTTP layer itself: route input checks, body limits, the front door, the
 *   app's error handler (`http/error-handler.ts`) and `httpErrorOf`;
 * - **the route layer**: the modules whose job is to mount HTTP entry points, known by their
 *   file name: `routes.ts` or `*-routes.ts` (a feature's `defineRoute`s, or an `app.get` mount
 *   such as `/metrics` and `/readyz`), `pages.ts` or `*-page.ts` (a page mount), and anything
 *   under `web/pages/`. Such a module may answer with `errorResponse` and headers of its own.
 *
 * Everything else throws a `Refusal`: services, stores, the authenticator, helpers used by
 * routes (`executions/access.ts`), and a feature's one-route modules (`create-connection.ts`,
 * `decide-approval.ts`) too, whose refusal `routeHandler` answers with the same status, code,
 * message, details and headers (`Retry-After`, `WWW-Authenticate` come from the refusal's
 * hints). Doc comments are scanned too, so an example never teaches the other way.
 *
 * A subclass of `HttpError` (or an import of it under another name) is allowed in `http/` only:
 * constructing it would pass unseen by this scan.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = import.meta.dirname;

/** Whether `path` (relative to `src/`, with `/`) is in the HTTP layer. */
function inHttpLayer(path: string): boolean {
  return path.startsWith('http/');
}

/** Whether `path` (relative to `src/`, with `/`) is in the route layer (see the header). */
function inRouteLayer(path: string): boolean {
  const name = path.split('/').at(-1) ?? '';
  return (
    /^(.+-)?routes\.ts$/.test(name) ||
    /^(pages|.+-page)\.ts$/.test(name) ||
    path.startsWith('web/pages/')
  );
}

/**
 * Where `code`, the text of the shipped module at `path` (relative to `src/`), constructs an
 * `HttpError` outside the HTTP and route layers, or declares or renames one outside `http/`:
 * one `path:line: what` per finding.
 */
export function misplacedHttpErrors(path: string, code: string): string[] {
  const found: string[] = [];
  const rules: { pattern: RegExp; allowed: boolean; what: string }[] = [
    {
      pattern: /\bnew\s+HttpError\b/g,
      allowed: inHttpLayer(path) || inRouteLayer(path),
      what: 'constructs an HttpError; throw a Refusal (errors/refusal.ts) instead',
    },
    {
      pattern: /\bextends\s+HttpError\b/g,
      allowed: inHttpLayer(path),
      what: 'declares a subclass of HttpError; throw a Refusal (errors/refusal.ts) instead',
    },
    {
      pattern: /\bHttpError\s+as\s+\w+/g,
      allowed: inHttpLayer(path),
      what: 'imports HttpError under another name',
    },
  ];
  for (const { pattern, allowed, what } of rules) {
    if (allowed) continue;
    for (const match of code.matchAll(pattern)) {
      const line = code.slice(0, match.index).split('\n').length;
      found.push(`${path}:${line}: ${what}`);
    }
  }
  return found;
}

/** Every shipped source file under `dir`: no tests, no type tests. */
function shipped(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return shipped(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('HttpError is constructed only in http/ and the route layer (issue 36)', () => {
  it('holds for every shipped module of the server', () => {
    const files = shipped(SRC);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      misplacedHttpErrors(relative(SRC, file).split('\\').join('/'), readFileSync(file, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('fails on a deliberate violation: a service, a one-route module, a subclass, a renamed import', () => {
    const thrown = "throw new HttpError('not_found', 'No connection 7');";
    expect(misplacedHttpErrors('connections/store.ts', `// a service\n${thrown}`)).toEqual([
      'connections/store.ts:2: constructs an HttpError; throw a Refusal (errors/refusal.ts) instead',
    ]);
    expect(misplacedHttpErrors('connections/create-connection.ts', thrown)).toHaveLength(1);
    expect(
      misplacedHttpErrors('identity/authenticate.ts', 'class Unauthenticated extends HttpError {}'),
    ).toEqual([
      'identity/authenticate.ts:1: declares a subclass of HttpError; throw a Refusal (errors/refusal.ts) instead',
    ]);
    // A route module may construct one, but not hide a subclass from this scan.
    expect(misplacedHttpErrors('me/routes.ts', 'class Gone extends HttpError {}')).toHaveLength(1);
    expect(
      misplacedHttpErrors(
        'policy/policy-service.ts',
        "import { HttpError as E } from '../http/errors.js';",
      ),
    ).toHaveLength(1);
  });

  it('lets the HTTP layer and the route layer construct one', () => {
    const thrown = "throw new HttpError('forbidden', 'Only an admin may do this');";
    for (const path of [
      'http/route.ts',
      'http/error-handler.ts',
      'metrics/routes.ts',
      'cli-auth/token-routes.ts',
      'upstream-oauth/pages.ts',
      'cli-auth/connect-page.ts',
      'web/pages/admin/users.ts',
    ]) {
      expect(misplacedHttpErrors(path, thrown)).toEqual([]);
    }
    expect(misplacedHttpErrors('http/errors.ts', 'class Narrow extends HttpError {}')).toEqual([]);
  });
});
