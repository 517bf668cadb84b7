import type { GatewayDatabase } from '../db/index.js';
import type { AppContext } from '../http/app-env.js';
import type { Authenticate } from './authenticate.js';
import type { UserPrincipal } from './principal.js';

/**
 * The signed-in person a page (the web app's, or a CLI flow's) is rendered for: their principal,
 * with the name and email the page shows.
 */
export interface Viewer {
  id: string;
  name: string;
  email: string;
  /** The role that applies: the assigned one, else the default role. */
  roleId: string;
  isAdmin: boolean;
  principal: UserPrincipal;
}

/**
 * The signed-in user of a page request (its session cookie, through the gateway's one
 * `authenticate()`), or undefined.
 */
export async function viewerOf(
  c: AppContext,
  database: GatewayDatabase,
  authenticate: Authenticate,
): Promise<Viewer | undefined> {
  const principal = await authenticate(c, 'page');
  if (principal.kind !== 'user') return undefined;
  c.set('principal', principal);
  const profile = await database.db
    .selectFrom('user')
    .select(['name', 'email'])
    .where('id', '=', principal.userId)
    .executeTakeFirst();
  if (profile === undefined) return undefined;
  return {
    id: principal.userId,
    name: profile.name,
    email: profile.email,
    roleId: principal.roleId,
    isAdmin: principal.isAdmin,
    principal,
  };
}
