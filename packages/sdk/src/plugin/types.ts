import type { z } from 'zod';
import type { InputSchema, Tool } from '../tool/types.js';

/**
 * An OAuth 2 provider a plugin brings itself (an API beyond the gateway's sign-in providers).
 * The gateway runs the authorization code flow with PKCE S256 through its own callback; the
 * operator supplies the client: `<ID>_CLIENT_ID` and `<ID>_CLIENT_SECRET` (the provider id
 * upper-cased, other characters as `_`). Never put a client secret in plugin code.
 *
 * @example
 * { authorizationUrl: 'https://api.notion.com/v1/oauth/authorize', tokenUrl: 'https://api.notion.com/v1/oauth/token', scopes: [] }
 */
export interface OAuthProviderConfig {
  /**
   * The authorization server's issuer: its endpoints are discovered (RFC 8414, then OpenID
   * Connect discovery). Give it, or both `authorizationUrl` and `tokenUrl`.
   */
  issuer?: string;
  /** The authorization endpoint (https, or http on a loopback address). */
  authorizationUrl?: string;
  /** The token endpoint (https, or http on a loopback address). */
  tokenUrl?: string;
  /** Scopes asked for at connect (the server's `<ID>_SCOPES` replaces them when set). */
  scopes?: readonly string[];
  /** Extra authorization request parameters, e.g. `{ owner: 'user' }` or `{ access_type: 'offline' }`. */
  authorizationParams?: Readonly<Record<string, string>>;
}

/**
 * How `ctx.auth.fetch()` sends a provider's credential: a header (default `authorization`) with
 * a scheme before the value (default `Bearer` on `authorization`, none on another header).
 *
 * @example
 * { header: 'x-api-key' }
 */
export interface CredentialPlacement {
  header?: string;
  scheme?: string;
}

/**
 * How the plugin's tools authenticate upstream.
 *
 * - `oauth2` with `oauth`: the plugin's own OAuth 2 provider ({@link OAuthProviderConfig}); users
 *   connect it from the Tools tab or `gateway connect <id>`.
 * - `oauth2` with `provider`: one of the gateway's sign-in providers (`github`, `google`,
 *   `microsoft`, `discord`, `gcp`, `atlassian`, `slack`, `linear`); tokens come from the user's
 *   linked account or a connection.
 * - `api_key`: a key the user or an admin stores as a connection, or the server's
 *   `<UPPER>_API_KEY` environment variable (the id upper-cased, other characters as `_`).
 */
export interface AuthProvider {
  /** Provider identifier, used with `ctx.auth.getToken(id)` and as the connection's tool id. */
  id: string;
  type: 'oauth2' | 'api_key';
  /**
   * The gateway sign-in provider an `oauth2` entry without `oauth` uses, e.g. `github`. Optional
   * otherwise (an API key's or the plugin's own OAuth provider's is its `id`).
   */
  provider?: string;
  /** The plugin's own OAuth 2 provider (only with `type: 'oauth2'`). */
  oauth?: OAuthProviderConfig;
  /** How `ctx.auth.fetch()` sends the credential (default `Authorization: Bearer <token>`). */
  send?: CredentialPlacement;
  /**
   * What the tools need, written down for the admin; never requested for a sign-in provider
   * (the server's `<ID>_SCOPES` sets what it is asked for). Optional; the plugin's own OAuth
   * provider asks for `oauth.scopes`.
   */
  scopes?: readonly string[];
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
