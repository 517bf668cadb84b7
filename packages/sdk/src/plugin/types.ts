import type { z } from 'zod';
import type { InputSchema, Tool } from '../tool/types.js';

/**
 * How the plugin's tools authenticate upstream.
 *
 * - `oauth2`: an OAuth provider of the gateway's sign-in (`provider` names it, e.g. `github`);
 *   tokens come from the user's linked account or a connection.
 * - `api_key`: a key the user or an admin stores as a connection, or the server's
 *   `<UPPER>_API_KEY` environment variable (the id upper-cased, other characters as `_`).
 */
export interface AuthProvider {
  /** Provider identifier, used with `ctx.auth.getToken(id)` and as the connection's tool id. */
  id: string;
  type: 'oauth2' | 'api_key';
  /** Upstream provider name, e.g. `github` or `google`. */
  provider: string;
  /**
   * What the tools need, written down for the admin; never requested by the gateway (the server's
   * `<ID>_SCOPES` sets what an OAuth provider is asked for). `[]` for API keys.
   */
  scopes: readonly string[];
}

/** The provider ids of `authProviders`: literal ids when declared literally, else `string`. */
export type ProviderId<TProviders extends readonly AuthProvider[]> = TProviders[number]['id'];

/**
 * A plugin's definition, as `definePlugin()` receives it. With `TProviders` known (an array
 * literal), each tool's `authProvider` must be one of their ids, and a tool made with
 * `defineToolFor()` for other providers does not fit.
 */
export interface PluginDefinition<
  TProviders extends readonly AuthProvider[] = readonly AuthProvider[],
> {
  /** Plugin identifier, lowercase (`[a-z][a-z0-9_-]*`). */
  id: string;
  /** Display name. */
  name: string;
  description: string;
  /** Auth providers shared by the plugin's tools. */
  authProviders?: TProviders;
  tools: readonly Tool<
    InputSchema,
    z.ZodType | undefined,
    ProviderId<TProviders>,
    ProviderId<TProviders>
  >[];
}

/** A validated plugin. */
export interface Plugin extends PluginDefinition {
  readonly kind: 'gateway.plugin';
  readonly authProviders: readonly AuthProvider[];
}
