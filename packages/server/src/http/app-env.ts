import type { Context } from 'hono';
import type { Principal } from '../identity/principal.js';

/** The variables every request carries through the app. */
export interface AppEnv {
  Variables: {
    /** Who the request acts for: set by `authenticate()` before any route runs. */
    principal: Principal;
    requestId: string;
  };
}

export type AppContext = Context<AppEnv>;
