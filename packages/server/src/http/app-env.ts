import type { Context } from 'hono';
import type { Caller } from '../auth/caller.js';

/** The variables every request carries through the app. */
export interface AppEnv {
  Variables: {
    caller: Caller;
    requestId: string;
  };
}

export type AppContext = Context<AppEnv>;
