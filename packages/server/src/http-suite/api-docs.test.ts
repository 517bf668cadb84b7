/**
 * `docs/api.md` keeps up with the server: a heading and a curl example for every route of
 * `gateway.routes()`, and a row for every error code (issue 3, "Done when"); its examples run as
 * written, in order, against `pnpm start` (issue 18).
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { gatewayRoutes, routeKey } from '#test/http-suite/suite-gateway.js';
import { errorCodes } from '../http/errors.js';

const routes = await gatewayRoutes();
const docs = await readFile(new URL('../../../../docs/api.md', import.meta.url), 'utf8');

/** `### \`GET /api/connections?userId=\`: ...` → `GET /api/connections`. */
const documented = new Set(
  [...docs.matchAll(/^### `([A-Z]+) (\/[^`?\s]*)/gm)].map((match) => `${match[1]} ${match[2]}`),
);

describe('docs/api.md', () => {
  it('has a section for every route', () => {
    expect(routes.map(routeKey).filter((key) => !documented.has(key))).toEqual([]);
  });

  it('has a curl example in every route section', () => {
    const sections = docs.split(/^### /m).slice(1);
    const withoutCurl = sections
      .filter((section) => section.startsWith('`') && !section.includes('curl -s'))
      .map((section) => section.split('\n')[0]);
    expect(withoutCurl).toEqual([]);
  });

  it('explains every error code', () => {
    for (const [code, status] of Object.entries(errorCodes)) {
      expect(docs, code).toMatch(new RegExp(`\\| ${status} \\| \`${code}\` \\|`));
    }
  });

  // Issue 18: ~10 variables the list did not define, the notes plugin unregistered from a running
  // dev gateway, and a tool (`forecast`) no example has.
  const examples = [...docs.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

  it('defines every variable its examples use, in its list or by an example before', () => {
    const [list = '', ...rest] = examples;
    const defined = new Set([...list.matchAll(/\b([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]));
    const undefinedVars: string[] = [];
    for (const line of rest.join('\n').split('\n')) {
      for (const [, name] of line.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)) {
        if (name !== undefined && !defined.has(name)) undefinedVars.push(name);
      }
      const assigned = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
      if (assigned !== undefined) defined.add(assigned);
    }
    expect(list).toContain('GATEWAY_URL=');
    expect([...new Set(undefinedVars)]).toEqual([]);
  });

  it('registers notes again after removing it, so the examples leave a dev gateway as it was', () => {
    const removal = examples.findIndex((e) => e.includes('/api/registry/sources/notes'));
    const registration = examples.findIndex((e) => e.includes('"pluginId":"notes"'));
    expect(removal).toBeGreaterThan(0);
    expect(registration).toBeGreaterThan(removal);
  });

  it('names only tools the example plugins have', async () => {
    const root = new URL('../../../../examples/', import.meta.url);
    const paths = new Set<string>();
    for (const name of await readdir(root)) {
      const entry = new URL(`${name}/src/index.ts`, root).href;
      const module = (await import(entry)) as { default: { tools: { path: string }[] } };
      for (const tool of module.default.tools) paths.add(tool.path);
    }
    const named = [
      ...docs.matchAll(/"(?:path|toolPath)": "([a-z0-9_]+\.[a-z0-9_.]+)"/g),
      ...docs.matchAll(/"(notes\.[a-z0-9_]+\.[a-z0-9_]+)"/g),
    ].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((path) => path !== undefined && !paths.has(path))).toEqual([]);
    expect(docs).not.toMatch(/forecast"/);
  });
});
