/**
 * The route lists the gateway mounts lazily (issue 37) name exactly the routes the web app and
 * the CLI pages mount, in the same order: a page added without its route in the list would answer
 * 404 (or another route's handler) until someone noticed.
 */
import { describe, expect, it } from 'vitest';
import { CLI_PAGE_ROUTES } from '../cli-auth/page-routes.js';
import { mountCliPagesNow } from '../cli-auth/pages.js';
import { recordRoutes } from '../http/lazy-routes.js';
import { mountWebApp } from './index.js';
import { WEB_ROUTES } from './routes.js';

const keys = (routes: readonly (readonly [string, string])[]) =>
  routes.map(([method, path]) => `${method} ${path}`);

describe('lazily mounted route lists', () => {
  it('WEB_ROUTES is every route mountWebApp mounts, in its order', () => {
    const mounted = recordRoutes((app) => mountWebApp(app, {} as never, (() => {}) as never));
    expect(keys(WEB_ROUTES)).toEqual([...mounted.keys()]);
  });

  it('CLI_PAGE_ROUTES is every route of the CLI pages, in their order', () => {
    const mounted = recordRoutes((app) => mountCliPagesNow(app, {} as never, (() => {}) as never));
    expect(keys(CLI_PAGE_ROUTES)).toEqual([...mounted.keys()]);
  });
});
