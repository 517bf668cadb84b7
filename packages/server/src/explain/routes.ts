import { HttpError } from '../http/errors.js';
import { type AnyRoute, defineRoute } from '../http/route.js';
import { type ExplainServices, explain } from './explain.js';
import { explainQuery, explanationSchema } from './schemas.js';

/**
 * `GET /api/explain?tool=&userId=&serviceAccountId=&endpointId=`: why a user (or service account)
 * may or may not see and call a tool. A user explains their own calls; admins and the service
 * secret anyone's.
 *
 * @example
 * routes.push(...explainRoutes(services));
 */
export function explainRoutes(services: ExplainServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/explain',
      summary: 'Explain whether a user (or service account) may see and call a tool, and how',
      tag: 'Policy',
      access: 'user',
      actsFor: 'query',
      query: explainQuery,
      responses: {
        200: { description: 'The verdict and its reasons', schema: explanationSchema },
        400: {
          description: 'tool missing, both userId and serviceAccountId, or an unknown parameter',
        },
        401: { description: 'No credentials' },
        403: {
          description:
            "Another user's userId or a serviceAccountId without being an admin; a service account",
        },
        404: { description: 'No such user, service account or endpoint' },
      },
      async handler(c, { query, principal }) {
        if (principal.kind === 'service_account') {
          throw new HttpError(
            'forbidden',
            'Service accounts may only call tools; this route acts for a user',
          );
        }
        const admin = principal.kind === 'trusted' || principal.isAdmin;
        if (query.serviceAccountId !== undefined) {
          if (query.userId !== undefined || query.endpointId !== undefined) {
            throw new HttpError(
              'bad_request',
              'Give userId (and endpointId) or serviceAccountId, not both',
            );
          }
          if (!admin)
            throw new HttpError('forbidden', 'Only an admin may explain for a service account');
          return c.json(
            await explain(
              services,
              principal,
              { kind: 'service_account', id: query.serviceAccountId },
              query.tool,
            ),
            200,
          );
        }
        const userId = query.userId ?? (principal.kind === 'user' ? principal.userId : undefined);
        if (userId === undefined) {
          throw new HttpError(
            'bad_request',
            'Name the user: userId (the service secret acts for no user)',
          );
        }
        return c.json(
          await explain(
            services,
            principal,
            { kind: 'user', id: userId, endpointId: query.endpointId },
            query.tool,
          ),
          200,
        );
      },
    }),
  ];
}
