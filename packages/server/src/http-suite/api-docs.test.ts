/**
 * `docs/api.md` keeps up with the server: a heading and a curl example for every route of
 * `gateway.routes`, and a row for every error code (issue 3, "Done when").
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../http/errors.js';
import { gatewayRoutes, routeKey } from './suite-gateway.js';

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
});
