import type { GatewayDatabase } from '../db/database.js';
import { deletedSchema } from '../http/common-schemas.js';
import { HttpError } from '../http/errors.js';
import { idParams, requireUuid } from '../http/id-param.js';
import { type AnyRoute, defineRoute, noQuery } from '../http/route.js';
import {
  createServiceAccount,
  deleteServiceAccount,
  listServiceAccounts,
} from '../identity/service-account-store.js';
import {
  createServiceAccountBody,
  serviceAccountCreatedSchema,
  serviceAccountListSchema,
} from './schemas.js';

/** What the service account routes read of the gateway's services. */
export type ServiceAccountsDeps = { database: GatewayDatabase };

/**
 * `POST`, `GET` and `DELETE /api/service-accounts`: non-human callers with a role of their own
 * and a `gw_sa_` key. They may call only tools marked `serviceAccountAllowed` that their role
 * allows.
 *
 * @example
 * routes.push(...serviceAccountRoutes(services));
 */
export function serviceAccountRoutes(services: ServiceAccountsDeps): AnyRoute[] {
  const { db } = services.database;
  return [
    defineRoute({
      method: 'post',
      path: '/api/service-accounts',
      summary: 'Create a service account and its key (admin)',
      tag: 'Service accounts',
      access: 'admin',
      body: createServiceAccountBody,
      responses: {
        201: {
          description: 'Created; the key is shown this once',
          schema: serviceAccountCreatedSchema,
        },
        400: { description: 'Invalid or unknown fields' },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin user' },
        404: { description: 'No such role' },
      },
      // The key is issued by a person (access `admin`), so revoking that person's access can be traced.
      async handler(c, { body, principal }) {
        const created = await createServiceAccount(db, { ...body, createdBy: principal.userId });
        if (!created) throw new HttpError('not_found', `No role ${body.roleId}`);
        return c.json(created, 201);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/service-accounts',
      summary: 'List service accounts (admin)',
      tag: 'Service accounts',
      access: 'service-or-admin',
      query: noQuery,
      responses: {
        200: {
          description: 'Every service account; keys masked',
          schema: serviceAccountListSchema,
        },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin' },
      },
      async handler(c) {
        return c.json({ serviceAccounts: await listServiceAccounts(db) });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/service-accounts/:id',
      summary: 'Delete a service account and revoke its keys (admin)',
      tag: 'Service accounts',
      access: 'service-or-admin',
      params: idParams,
      query: noQuery,
      responses: {
        200: { description: 'Deleted; its keys stop working at once', schema: deletedSchema },
        401: { description: 'No credentials' },
        403: { description: 'Not an admin' },
        404: { description: 'No such service account' },
      },
      async handler(c, { params }) {
        const id = requireUuid(params.id, 'service account');
        if (!(await deleteServiceAccount(db, id)))
          throw new HttpError('not_found', `No service account ${id}`);
        return c.json({ deleted: [id] });
      },
    }),
  ];
}
