import type { Context } from 'hono';
import type { Principal } from '../identity/principal.js';
import type { SessionState } from '../identity/token-repository.js';

/** The variables every request carries through the app. */
export interface AppEnv {
  Variables: {
    /** Who the request acts for: set by `authenticate()` before any route runs. */
    principal: Principal;
    requestId: string;
    /**
     * The route pattern a hot route names itself for the request log (`/mcp`, `/mcp/:token`), where
     * Hono's `routePath` works it out from its list of matches (issue 37). Unset: `routePath`.
     */
    route?: string;
    /** At `/mcp` on PostgreSQL: the request's 2025 session as its token's lookup read it. */
    sessionState?: SessionState;
  };
}

export type AppContext = Context<AppEnv>;
