import { type AnyRoute, defineRoute } from '../http/route.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import { previewPatterns } from './preview.js';
import { previewBody, previewSchema } from './schemas.js';

/** What the role preview route reads of the gateway's services. */
export type RolePreviewDeps = { plugins: PluginCatalog };

/**
 * `POST /api/policy/preview` (admin): the tools a list of patterns would allow, for the live
 * preview of the web app's role editor. Changes nothing.
 *
 * @example
 * routes.push(...rolePreviewRoutes(services));
 */
export function rolePreviewRoutes(services: RolePreviewDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/policy/preview',
      summary: 'Preview the tools role patterns match (admin)',
      tag: 'Policy',
      access: 'service-or-admin',
      body: previewBody,
      responses: {
        200: {
          description: 'Each pattern checked, and the tools the valid ones match',
          schema: previewSchema,
        },
        400: { description: 'Not a list of at most 1000 strings' },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin' },
      },
      handler: (c, { body }) =>
        c.json(previewPatterns(body.patterns, services.plugins.tools()), 200),
    }),
  ];
}
