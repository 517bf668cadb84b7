import {
  type AuthProvider,
  AuthRequiredError,
  type AuthResolver,
  type GetTokenOptions,
  ToolError,
  UndeclaredProviderError,
} from '@gateway/sdk';
import { createAuthResolver } from '@gateway/sdk/kernel';
import type { GatewayAuth } from '../auth/create-auth.js';
import { providerUnreachableText } from '../auth/outage-log.js';
import type { Env } from '../config/env.js';
import { serverApiKey } from '../config/env.js';
import { findServingConnection } from '../connections/serving-connection.js';
import type { ConnectionOwner } from '../connections/tables.js';
import type { GatewayDatabase } from '../db/database.js';
import type { ServerLogger } from '../http/logger.js';
import { SecretDecryptError, SecretUnreadableError } from '../secrets/index.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { traced } from '../tracing/index.js';
import { pluginOAuthKey, type UpstreamTokenLookup } from '../upstream/oauth-hooks.js';
import {
  createOAuthTokenSource,
  type OAuthTokenResult,
  type OAuthTokenSource,
} from './oauth-source.js';

/** Where a vended credential came from, in the order they are tried. */
export type TokenSource = 'connection' | 'team_connection' | 'oauth' | 'api_key';

/** A vended credential and its source (for the execution record; never log the token). */
export interface VendedToken {
  token: string;
  source: TokenSource;
  /** The user's connection that served a plugin's own OAuth provider (to mark on a 401). */
  connectionId?: string;
}

/** The users' tokens of plugins' own OAuth providers (`upstream-oauth/` keeps them). */
export interface PluginOAuthTokens {
  accessToken(userId: string, key: string): Promise<UpstreamTokenLookup>;
  markRefused(userId: string, key: string, connectionId: string): Promise<void>;
}

/** Options of {@link TokenVendor.getToken}. */
export interface VendTokenOptions extends GetTokenOptions {
  /**
   * The plugin's auth provider entry for `providerId`. Its `provider` names the OAuth account
   * (better-auth provider id) that serves it, and an `api_key` entry skips OAuth. Without it the
   * OAuth account's provider id is `providerId` itself.
   */
  authProvider?: AuthProvider | undefined;
}

/**
 * Vends credentials to tool handlers (`ctx.auth.getToken(provider)`).
 *
 * @example
 * const token = await services.tokens.getToken(userId, 'github', { authProvider });
 */
export interface TokenVendor {
  /**
   * A credential for `providerId` (an auth provider id of the tool's plugin), trying in order:
   * 1. the user's own connection whose `tool_id` is `providerId` (the named `instance`, or the
   *    most recently updated top-level one), decrypted;
   * 2. a team connection for `providerId` that an admin made for everyone;
   * 3. the user's OAuth account with the entry's upstream `provider`, refreshed when expired
   *    (single-flight, see {@link createOAuthTokenSource});
   * 4. the server's `<PROVIDER_ID>_API_KEY` environment variable.
   *
   * A named `instance` only matches connections (steps 1 and 2).
   *
   * @throws AuthRequiredError (from `@gateway/sdk`) when no source has one; its message says how
   * to connect: the web app's Tools tab or `gateway connect <providerId>`.
   * @throws SecretUnreadableError (a `ToolError`) when the serving connection (step 1 or 2) cannot
   * be decrypted with any configured auth secret; later sources are then not tried.
   */
  getToken(userId: string, providerId: string, options?: VendTokenOptions): Promise<string>;
  /** As {@link TokenVendor.getToken}, also saying which source served. */
  vend(userId: string, providerId: string, options?: VendTokenOptions): Promise<VendedToken>;
  /**
   * The `ctx.auth` of one tool call for `userId` by a tool of `plugin`: `getToken(provider)`
   * serves only a `provider` the plugin declares in `authProviders` (whose entry gives the
   * upstream mapping). For any other it throws `UndeclaredProviderError` (from `@gateway/sdk`)
   * before any source is read, so a plugin never reaches the user's other credentials.
   */
  resolverFor(
    userId: string,
    plugin: ToolPlugin,
    options?: { onVended?: (token: string) => void },
  ): AuthResolver;
}

/** The plugin a tool belongs to, as far as vending needs it: its id and declared providers. */
export interface ToolPlugin {
  id: string;
  authProviders: readonly AuthProvider[];
}

/** What the vendor reads: the database, the secret box, the environment and the base URL. */
export type VendingServices = {
  database: GatewayDatabase;
  secrets: SecretBox;
  env: Env;
  logger: ServerLogger;
  baseUrl: string;
};

/** What the vendor's steps share. */
interface Vending {
  services: VendingServices;
  auth: GatewayAuth;
  oauth: OAuthTokenSource;
  /** Read at use time: the upstream OAuth service is made after the vendor. */
  pluginOAuth: () => PluginOAuthTokens | undefined;
}

/**
 * Creates the token vendor. `services` is read at call time (the base URL is known only once
 * the server listens).
 *
 * @example
 * const tokens = createTokenVendor(services, auth);
 * const { token, source } = await tokens.vend(userId, 'gcp', { authProvider });
 */
export function createTokenVendor(
  services: VendingServices,
  auth: GatewayAuth,
  options: {
    onRefresh?: (providerId: string, result: 'ok' | 'failed') => void;
    /** Read at use time: the upstream OAuth service is made after the vendor. */
    pluginOAuth?: () => PluginOAuthTokens;
  } = {},
): TokenVendor {
  const vending: Vending = {
    services,
    auth,
    oauth: createOAuthTokenSource(services.database, auth, services.logger, options),
    pluginOAuth: () => options.pluginOAuth?.(),
  };
  const vend = (userId: string, providerId: string, vendOptions: VendTokenOptions = {}) =>
    vendToken(vending, userId, providerId, vendOptions);
  return {
    vend,
    getToken: async (userId, providerId, vendOptions) =>
      (await vend(userId, providerId, vendOptions)).token,
    resolverFor: (userId, plugin, resolverOptions = {}) =>
      authResolver(vending, vend, { userId, plugin, onVended: resolverOptions.onVended }),
  };
}

/** The user's (or their team's) connection for `providerId`, decrypted; undefined when none. */
async function fromConnection(
  { services }: Vending,
  owner: ConnectionOwner,
  userId: string,
  providerId: string,
  instance: string | undefined,
): Promise<string | undefined> {
  const found = await findServingConnection(services.database.db, {
    owner,
    userId,
    toolId: providerId,
    instance,
  });
  if (!found) return undefined;
  try {
    return services.secrets.decrypt(found.encryptedSecret);
  } catch (error) {
    if (!(error instanceof SecretDecryptError)) throw error;
    // Typically AUTH_SECRET changed without its old value in GATEWAY_PREVIOUS_AUTH_SECRETS. The
    // call fails rather than try the next source: the user or an admin chose this credential,
    // and the server's own key in its place would act with other rights.
    services.logger.error('a stored connection cannot be decrypted', {
      connectionId: found.id,
      owner,
      error: error.message,
    });
    throw new SecretUnreadableError({ id: found.id, owner, toolId: providerId }, { cause: error });
  }
}

/** {@link TokenVendor.vend}: each source in turn. */
async function vendToken(
  vending: Vending,
  userId: string,
  providerId: string,
  options: VendTokenOptions,
): Promise<VendedToken> {
  const { services } = vending;
  const { instance, authProvider } = options;
  if (authProvider?.oauth !== undefined) {
    return vendPluginOAuth(vending, userId, providerId, instance);
  }
  const own = await fromConnection(vending, 'user', userId, providerId, instance);
  if (own !== undefined) return { token: own, source: 'connection' };
  const team = await fromConnection(vending, 'team', userId, providerId, instance);
  if (team !== undefined) return { token: team, source: 'team_connection' };
  const connectId = connectIdFor(authProvider, providerId);
  if (instance !== undefined) {
    throw new AuthRequiredError(
      providerId,
      `No "${providerId}" connection named "${instance}". ${howToConnect(services.baseUrl, connectId)}`,
    );
  }

  let oauthResult: OAuthTokenResult | undefined;
  if (authProvider?.type !== 'api_key') {
    oauthResult = await vending.oauth.accessToken(userId, authProvider?.provider ?? providerId);
    if (oauthResult.ok) return { token: oauthResult.token, source: 'oauth' };
  }

  const key = serverApiKey(services.env, providerId);
  if (key !== undefined) return { token: key, source: 'api_key' };
  const reason = oauthResult !== undefined && !oauthResult.ok ? oauthResult.reason : 'none';
  throw noCredential(vending, providerId, connectId, reason);
}

/** Why no source had a credential, and how the user gets one. */
function noCredential(
  { services, auth }: Vending,
  providerId: string,
  connectId: string,
  reason: Exclude<OAuthTokenResult, { ok: true }>['reason'],
): Error {
  if (reason === 'unreachable') {
    // Nothing of the user's expired and nothing is marked: the provider is down (issue 39).
    const name = auth.providers.find((provider) => provider.id === connectId)?.name ?? connectId;
    return new ProviderUnreachableError(providerUnreachableText(name));
  }
  return new AuthRequiredError(
    providerId,
    reason === 'refused'
      ? `Your "${connectId}" sign-in has expired and could not be renewed: the provider refused it (revoked or expired). ${howToConnect(services.baseUrl, connectId, 'Reconnect')}`
      : reason !== 'none'
        ? `Your "${connectId}" sign-in has expired and could not be renewed. ${howToConnect(services.baseUrl, connectId, 'Reconnect')}`
        : `No credential for "${providerId}". ${howToConnect(services.baseUrl, connectId)}`,
  );
}

/**
 * A plugin's own OAuth provider: the user's connection made by connecting it (refreshed when
 * due, single-flight across instances), a plain token the user pasted, a team connection, the
 * server's `<ID>_API_KEY`.
 */
async function vendPluginOAuth(
  vending: Vending,
  userId: string,
  providerId: string,
  instance: string | undefined,
): Promise<VendedToken> {
  const { services } = vending;
  const tokens = vending.pluginOAuth();
  const how = (verb?: string) => howToConnect(services.baseUrl, providerId, verb);
  if (instance !== undefined) {
    const named = await fromConnection(vending, 'user', userId, providerId, instance);
    if (named !== undefined) return { token: named, source: 'connection' };
    const team = await fromConnection(vending, 'team', userId, providerId, instance);
    if (team !== undefined) return { token: team, source: 'team_connection' };
    throw new AuthRequiredError(
      providerId,
      `No "${providerId}" connection named "${instance}". ${how()}`,
    );
  }
  const own =
    tokens === undefined ? undefined : await tokens.accessToken(userId, pluginOAuthKey(providerId));
  if (own?.ok) return { token: own.token, source: 'connection', connectionId: own.connectionId };
  if (own !== undefined && own.reason !== 'none') {
    throw new AuthRequiredError(
      providerId,
      own.reason === 'refused'
        ? `Your "${providerId}" connection was refused by its provider (revoked or expired). ${how('Reconnect')}`
        : `Your "${providerId}" connection has expired and could not be renewed. ${how('Reconnect')}`,
    );
  }
  const team = await fromConnection(vending, 'team', userId, providerId, undefined);
  if (team !== undefined) return { token: team, source: 'team_connection' };
  const key = serverApiKey(services.env, providerId);
  if (key !== undefined) return { token: key, source: 'api_key' };
  throw new AuthRequiredError(providerId, `No credential for "${providerId}". ${how()}`);
}

/** {@link TokenVendor.resolverFor}. */
function authResolver(
  vending: Vending,
  vend: TokenVendor['vend'],
  call: { userId: string; plugin: ToolPlugin; onVended?: ((token: string) => void) | undefined },
): AuthResolver {
  const { userId, plugin } = call;
  // The connection that served each provider's last token in this call, to mark on a 401.
  const served = new Map<string, string>();
  return createAuthResolver({
    providers: plugin.authProviders,
    getToken: async (provider, options) => {
      const authProvider = plugin.authProviders.find((entry) => entry.id === provider);
      if (authProvider === undefined) throw new UndeclaredProviderError(plugin.id, provider);
      return traced('gateway.vend', { 'gateway.provider': provider }, async (span) => {
        const vended = await vend(userId, provider, { ...options, authProvider });
        // Where it came from, never what it is.
        span?.setAttribute('gateway.credential_source', vended.source);
        if (vended.connectionId !== undefined) served.set(provider, vended.connectionId);
        else served.delete(provider);
        call.onVended?.(vended.token);
        return vended.token;
      });
    },
    onUnauthorized: async (provider) => {
      const connectionId = served.get(provider);
      const tokens = vending.pluginOAuth();
      if (connectionId === undefined || tokens === undefined) return undefined;
      // The upstream refused the token: the Tools tab shows Reconnect from now on.
      await tokens.markRefused(userId, pluginOAuthKey(provider), connectionId);
      return `The "${provider}" API refused your connection (401: revoked or expired). ${howToConnect(vending.services.baseUrl, provider, 'Reconnect')}`;
    },
  });
}

/**
 * The provider a call needed cannot be reached right now: a tool error (the call fails and is
 * recorded as such), not a credential the user must renew.
 */
export class ProviderUnreachableError extends ToolError {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnreachableError';
  }
}

/**
 * The id `gateway connect` takes for a plugin's auth provider `providerId`: the configured OAuth
 * provider (`gcp`) an OAuth entry names, not the plugin's own name for it (`idp-gcp`), which the
 * CLI does not know (issues 15, 39); an API-key entry's own id.
 *
 * @example
 * connectIdFor({ id: 'idp-gcp', type: 'oauth2', provider: 'gcp', scopes: [] }, 'idp-gcp'); // 'gcp'
 */
export function connectIdFor(authProvider: AuthProvider | undefined, providerId: string): string {
  return authProvider === undefined ||
    authProvider.type === 'api_key' ||
    authProvider.oauth !== undefined
    ? providerId
    : authProvider.provider || providerId;
}

/**
 * How a user connects `providerId`: the web app's Tools tab at `baseUrl`, or the CLI.
 *
 * @example
 * howToConnect('https://gw.example.com', 'github'); // 'Connect it in the Tools tab of https://gw.example.com or run `gateway connect github`.'
 */
export function howToConnect(baseUrl: string, providerId: string, verb = 'Connect'): string {
  return `${verb} it in the Tools tab of ${baseUrl} or run \`gateway connect ${providerId}\`.`;
}
