import type { LazyRoute } from '../http/lazy-routes.js';

/**
 * Every route of the CLI flows' browser pages (`mountCliPagesNow`), in the order they are mounted:
 * registered at start, the pages load with the first request to one (`mountLazily`).
 * `web-routes.test.ts` checks this list against what the pages mount.
 */
export const CLI_PAGE_ROUTES: readonly LazyRoute[] = [
  ['GET', '/cli/sign-in'],
  ['POST', '/cli/sign-in'],
  ['POST', '/cli/sign-in/social'],
  ['GET', '/cli/authorize'],
  ['POST', '/cli/authorize'],
  ['GET', '/cli/connect/:provider'],
  ['POST', '/cli/connect/:provider'],
  ['GET', '/cli/connect/:provider/done'],
  ['GET', '/cli/authorize/complete'],
  ['GET', '/cli/connect/:provider/complete'],
];
