import { ADMIN_ROLE_ID } from '../auth/index.js';
import type { AppContext } from '../http/app-env.js';
import type { GatewayServices } from '../services.js';

/** The signed-in person a page is rendered for. */
export interface Viewer {
  id: string;
  name: string;
  email: string;
  /** The role that applies: the assigned one, else the default role. */
  roleId: string;
  isAdmin: boolean;
}

/** The signed-in user of the request's session cookie, or undefined. */
export async function viewerOf(
  c: AppContext,
  services: GatewayServices,
): Promise<Viewer | undefined> {
  const session = await services.auth.getSession(c.req.raw.headers);
  if (!session) return undefined;
  const assigned = await services.database.db
    .selectFrom('user_roles')
    .select('role_id')
    .where('user_id', '=', session.user.id)
    .executeTakeFirst();
  const roleId = assigned?.role_id ?? services.defaultRoleId;
  return {
    id: session.user.id,
    name: session.user.name,
    email: session.user.email,
    roleId,
    isAdmin: roleId === ADMIN_ROLE_ID,
  };
}
