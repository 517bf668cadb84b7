import { type AnyRoute, defineRoute, noQuery } from '../http/route.js';
import {
  providerIdParams,
  providerItemSchema,
  providerListSchema,
  setProviderClientBody,
} from './schemas.js';
import type { ProviderClientsService } from './service.js';

/** What the provider routes read of the gateway's services. */
export type ProviderClientsDeps = { providerClients: ProviderClientsService };

/**
 * `GET /api/providers`, `PUT` and `DELETE /api/providers/:id` (admin): the clients of plugins'
 * own OAuth providers, as Admin → Providers sets them. Secrets go in, never out.
 *
 * @example
 * routes.push(...providerClientRoutes({ providerClients }));
 */
export function providerClientRoutes(deps: ProviderClientsDeps): AnyRoute[] {
  const { providerClients } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/providers',
      summary: "List plugins' own OAuth providers and where their clients come from (admin)",
      tag: 'Providers',
      access: 'admin',
      query: noQuery,
      responses: {
        200: {
          description: 'Every loaded plugin’s own OAuth provider, by id; secrets never shown',
          schema: providerListSchema,
        },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin user' },
      },
      async handler(c) {
        return c.json({ providers: await providerClients.list() });
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/providers/:id',
      summary: "Give a plugin's own OAuth provider its client id and secret (admin)",
      tag: 'Providers',
      access: 'admin',
      params: providerIdParams,
      body: setProviderClientBody,
      query: noQuery,
      responses: {
        200: {
          description:
            'Stored, the secret encrypted; `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET`, when set, still win',
          schema: providerItemSchema,
        },
        400: { description: 'Invalid or unknown fields, or no secret given nor stored' },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin user' },
        404: { description: 'No loaded plugin declares this OAuth provider' },
      },
      async handler(c, { params, body, principal }) {
        return c.json(await providerClients.set(params.id, body, principal.userId));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/providers/:id',
      summary: "Forget the client an admin gave a plugin's own OAuth provider (admin)",
      tag: 'Providers',
      access: 'admin',
      params: providerIdParams,
      query: noQuery,
      responses: {
        200: {
          description: 'Forgotten; the provider as it is now (the settings’ client, if any)',
          schema: providerItemSchema,
        },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin user' },
        404: { description: 'No such provider, or no client given to it here' },
      },
      async handler(c, { params, principal }) {
        return c.json(await providerClients.remove(params.id, principal.userId));
      },
    }),
  ];
}
