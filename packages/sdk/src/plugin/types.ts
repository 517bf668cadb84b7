import type { Tool } from '../tool/types.js';

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
  /** OAuth scopes requested (empty for API keys). */
  scopes: readonly string[];
}

/** A plugin's definition, as `definePlugin()` receives it. */
export interface PluginDefinition {
  /** Plugin identifier, lowercase (`[a-z][a-z0-9_-]*`). */
  id: string;
  /** Display name. */
  name: string;
  description: string;
  /** Auth providers shared by the plugin's tools. */
  authProviders?: readonly AuthProvider[];
  tools: readonly Tool[];
}

/** A validated plugin. */
export interface Plugin extends PluginDefinition {
  readonly kind: 'gateway.plugin';
  readonly authProviders: readonly AuthProvider[];
}
