import type { GatewayDatabase } from '../db/database.js';
import { deletedSchema } from '../http/common-schemas.js';
import { HttpError } from '../http/errors.js';
import { idParams, requireUuid } from '../http/id-param.js';
import { type AnyRoute, defineRoute, noQuery } from '../http/route.js';
import type { SignupPolicy } from './policy.js';
import { createInviteBody, inviteCreatedSchema, inviteListSchema } from './schemas.js';
import { createInvite, listInvites, revokeInvite } from './store.js';

/** How long an invite link stays valid when the admin does not say. */
export const DEFAULT_INVITE_DAYS = 7;

/** What the invite routes read of the gateway's services. */
export type InvitesDeps = { database: GatewayDatabase; signup: SignupPolicy; baseUrl: string };

/**
 * `POST`, `GET` and `DELETE /api/invites`: single-use sign-up links an admin hands out, for
 * `GATEWAY_SIGNUP=invite` (see docs/auth.md).
 *
 * @example
 * routes.push(...inviteRoutes(services));
 */
export function inviteRoutes(services: InvitesDeps): AnyRoute[] {
  return [
    createInviteRoute(services),
    listInvitesRoute(services.database),
    revokeInviteRoute(services.database),
  ];
}

/** `POST /api/invites`: a single-use sign-up link, shown this once. */
function createInviteRoute(services: InvitesDeps) {
  const { db } = services.database;
  return defineRoute({
    method: 'post',
    path: '/api/invites',
    summary: 'Create a sign-up invite link (admin)',
    tag: 'Invites',
    access: 'admin',
    body: createInviteBody,
    responses: {
      201: { description: 'Created; the link is shown this once', schema: inviteCreatedSchema },
      400: { description: 'Invalid or unknown fields' },
      401: { description: 'No credentials' },
      403: { description: 'Not an admin user' },
      409: {
        description: 'Sign-up is closed (GATEWAY_SIGNUP=closed): an invite could not be used',
      },
    },
    // Access `admin` is an admin user: an invite records the person who let someone in.
    async handler(c, { body, principal }) {
      const createdBy = principal.userId;
      if (services.signup.mode === 'closed') {
        throw new HttpError(
          'conflict',
          'Sign-up is closed on this gateway (GATEWAY_SIGNUP=closed), so an invite could not be used; set GATEWAY_SIGNUP=invite to invite people',
        );
      }
      const { invite, token } = await createInvite(db, {
        email: body.email,
        expiresInDays: body.expiresInDays ?? DEFAULT_INVITE_DAYS,
        createdBy,
      });
      const url = `${services.baseUrl}/sign-up?invite=${token}`;
      return c.json({ invite, url }, 201);
    },
  });
}

/** `GET /api/invites`: every invite, never its token. */
function listInvitesRoute({ db }: GatewayDatabase) {
  return defineRoute({
    method: 'get',
    path: '/api/invites',
    summary: 'List sign-up invites (admin)',
    tag: 'Invites',
    access: 'admin',
    query: noQuery,
    responses: {
      200: { description: 'Every invite, newest first; never a token', schema: inviteListSchema },
      401: { description: 'No credentials' },
      403: { description: 'Not an admin user' },
    },
    async handler(c) {
      return c.json({ invites: await listInvites(db) });
    },
  });
}

/** `DELETE /api/invites/:id`: an unused invite's link stops working. */
function revokeInviteRoute({ db }: GatewayDatabase) {
  return defineRoute({
    method: 'delete',
    path: '/api/invites/:id',
    summary: 'Revoke a sign-up invite (admin)',
    tag: 'Invites',
    access: 'admin',
    params: idParams,
    query: noQuery,
    responses: {
      200: { description: 'Revoked; its link stops working at once', schema: deletedSchema },
      401: { description: 'No credentials' },
      403: { description: 'Not an admin user' },
      404: { description: 'No such invite, or already revoked' },
      409: { description: 'The invite was already used' },
    },
    async handler(c, { params }) {
      const id = requireUuid(params.id, 'invite');
      const outcome = await revokeInvite(db, id);
      if (outcome === 'missing') throw new HttpError('not_found', `No invite ${id}`);
      if (outcome === 'used') {
        throw new HttpError(
          'conflict',
          `Invite ${id} was already used; remove the account it made instead`,
        );
      }
      return c.json({ deleted: [id] });
    },
  });
}
