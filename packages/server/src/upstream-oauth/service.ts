import { randomBytes } from 'node:crypto';
import type { OAuthProviderConfig } from '@gateway/sdk';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Kysely } from 'kysely';
import type { Env } from '../config/env.js';
import type { DatabaseSchema } from '../db/index.js';
import { Refusal } from '../errors/refusal.js';
import type { ServerLogger } from '../http/logger.js';
import type { SecretBox } from '../secrets/index.js';
import {
  type OAuthUpstreamAuth,
  oauthToolId,
  PLUGIN_OAUTH_PREFIX,
  type UpstreamOAuthHooks,
  type UpstreamTokenLookup,
} from '../upstream/oauth-hooks.js';
import type { UrlPolicy } from '../upstream/url-policy.js';
import { clientMetadataDocument, clientMetadataUrl } from './client-metadata.js';
import { clientFor, readClient, storePreRegisteredClient } from './clients.js';
import { ConnectError, type ConnectReturn, returnSchema } from './connect-error.js';
import { asDiscoveryError, type Discovered, discoverAuthorization } from './discovery.js';
import { type FlowRow, keepFlow, takeFlow } from './flows.js';
import { createOAuthFetch } from './oauth-fetch.js';
import {
  describePluginProvider,
  type PluginOAuthProvider,
  pluginOAuthClient,
  pluginProviderIdOf,
  withAuthorizationParams,
} from './plugin-providers.js';
import { redeemCode } from './redeem-code.js';
import { oauthClient } from './sdk.js';
import {
  challengedScopes,
  joinScopes,
  keepWantedScopes,
  wantedScopes,
  wantedScopesBySource,
} from './step-up.js';
import { UpstreamTokens } from './tokens.js';

/** The path of the one redirect URI the gateway registers at every upstream's authorization server. */
export const UPSTREAM_CALLBACK_PATH = '/oauth/upstream/callback';

/** The sources the service connects users to (the upstream service implements it). */
export interface OAuthSources {
  oauthSource(id: string): { id: string; url: string; auth: OAuthUpstreamAuth } | undefined;
  /** Fetches a source's tool list with a token of a user who just connected. */
  refreshWith(id: string, token: string): Promise<void>;
}

/** What {@link UpstreamOAuthService} is made with. */
export interface UpstreamOAuthServiceOptions {
  db: Kysely<DatabaseSchema>;
  secrets: Pick<SecretBox, 'encrypt' | 'decrypt'>;
  logger: ServerLogger;
  policy: UrlPolicy;
  baseUrl: () => string;
  /**
   * Whether the gateway offers its Client ID Metadata Document where its address is https
   * (`GATEWAY_UPSTREAM_CLIENT_METADATA`, default true).
   */
  clientMetadata?: boolean;
  /** Read at use time: the upstream service is made after this one. */
  sources: () => OAuthSources;
  /** The plugins' own OAuth providers, by id (read at use time: `gateway dev` reloads plugins). */
  pluginProviders?: () => ReadonlyMap<string, PluginOAuthProvider>;
  /** The settings the operator's clients of plugin providers are read from first. */
  env?: Env;
  /** The clients admins gave plugin providers (Admin → Providers), where the settings have none. */
  providerClients?: ProviderClients;
}

/** The clients admins gave plugins' own OAuth providers (the provider-clients store). */
export interface ProviderClients {
  client(providerId: string): Promise<{ clientId: string; clientSecret: string } | undefined>;
  list(): Promise<readonly { providerId: string }[]>;
}

/**
 * Per-user OAuth to upstream MCP servers, per the MCP authorization spec: discovery (RFC 9728,
 * RFC 8414), the gateway's client (pre-registered, its Client ID Metadata Document where the
 * server takes one and the gateway is on https, or RFC 7591 at the first connect), the
 * authorization code flow with PKCE S256, `resource` (RFC 8707) on the authorization and token
 * requests, `state` single-use and bound to the user who started, and `iss` checked (RFC 9207).
 * Tokens are the user's connection (see {@link UpstreamTokens}).
 *
 * @example
 * const url = await service.start({ userId, sourceId: 'secure', returnTo: { kind: 'web' } });
 * // ... the browser comes back to /oauth/upstream/callback:
 * const { sourceId } = await service.finish({ viewerId, query });
 */
export class UpstreamOAuthService implements UpstreamOAuthHooks {
  readonly #options: UpstreamOAuthServiceOptions;
  readonly tokens: UpstreamTokens;

  constructor(options: UpstreamOAuthServiceOptions) {
    this.#options = options;
    this.tokens = new UpstreamTokens(options);
  }

  async check(url: string, auth: OAuthUpstreamAuth): Promise<void> {
    const oauthFetch = createOAuthFetch(this.#options.policy);
    try {
      await discoverAuthorization(url, {
        fetch: oauthFetch.fetch,
        policy: this.#options.policy,
        scopes: auth.scopes,
      });
    } catch (error) {
      const failure = asDiscoveryError(error);
      throw new Refusal(
        failure.kind === 'refused' ? 'bad_request' : 'service_unavailable',
        failure.message,
      );
    } finally {
      await oauthFetch.close();
    }
  }

  storeClient(
    db: Kysely<DatabaseSchema>,
    sourceId: string,
    client: { clientId: string; clientSecret?: string | undefined },
  ): Promise<void> {
    return storePreRegisteredClient(this.#options, sourceId, client, db);
  }

  accessToken(userId: string, sourceId: string): Promise<UpstreamTokenLookup> {
    return this.tokens.accessToken(userId, sourceId);
  }

  markRefused(userId: string, sourceId: string, connectionId: string): Promise<void> {
    return this.tokens.markRefused(userId, sourceId, connectionId);
  }

  async wantScope(userId: string, sourceId: string, challenge: string): Promise<void> {
    const { db, logger } = this.#options;
    try {
      const scopes = await challengedScopes(challenge);
      if (scopes.length === 0) return;
      await keepWantedScopes(db, userId, sourceId, scopes);
      logger.info('upstream OAuth asks for more scope', {
        sourceId,
        userId,
        scope: scopes.join(' '),
      });
    } catch (error) {
      // The call still ends with the upstream's refusal and what to do; only the next connect's
      // extra scopes are lost.
      logger.warn('upstream OAuth scope request not kept', {
        sourceId,
        userId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * The scopes upstreams asked `userId` for that their tokens lack, by the source's connection tool
   * id (`mcp.<source id>`): the user's next connect to that source asks for them (step-up).
   */
  async moreScopeWanted(userId: string): Promise<Map<string, string>> {
    const bySource = await wantedScopesBySource(this.#options.db, userId);
    return new Map([...bySource].map(([sourceId, scope]) => [oauthToolId(sourceId), scope]));
  }

  listingToken(sourceId: string): Promise<string | undefined> {
    return this.tokens.listingToken(sourceId);
  }

  /**
   * The gateway's Client ID Metadata Document, as `/oauth/client-metadata.json` serves it, or
   * why it has none.
   */
  clientMetadataDocument(): { document: Record<string, unknown> } | { none: string } {
    const base = this.#options.baseUrl();
    if (this.#metadataDocumentUrl() === undefined) {
      return {
        none:
          this.#options.clientMetadata === false
            ? 'This gateway offers no OAuth client ID metadata document (GATEWAY_UPSTREAM_CLIENT_METADATA=false); it registers at authorization servers instead'
            : "This gateway's address (GATEWAY_BASE_URL) is not https, so it has no OAuth client ID metadata document; it registers at authorization servers instead",
      };
    }
    return { document: clientMetadataDocument(base, `${base}${UPSTREAM_CALLBACK_PATH}`) };
  }

  #metadataDocumentUrl(): string | undefined {
    return this.#options.clientMetadata === false
      ? undefined
      : clientMetadataUrl(this.#options.baseUrl());
  }

  /**
   * Whether `id` is a source whose users connect with OAuth: an upstream MCP source, or a
   * plugin's own OAuth provider (`@<provider id>`) whose client the operator configured.
   */
  async isOAuthSource(id: string): Promise<boolean> {
    const providerId = pluginProviderIdOf(id);
    if (providerId !== undefined) return (await this.#pluginProvider(providerId)) !== undefined;
    return this.#options.sources().oauthSource(id) !== undefined;
  }

  /**
   * The ids of the plugins' own OAuth providers that have a client: in the settings
   * (`<ID>_CLIENT_ID` and `_CLIENT_SECRET`) or given by an admin (Admin → Providers).
   */
  async configuredPluginProviders(): Promise<Set<string>> {
    const providers = this.#options.pluginProviders?.() ?? new Map();
    const stored = new Set(
      (await this.#options.providerClients?.list())?.map((row) => row.providerId) ?? [],
    );
    return new Set(
      [...providers.keys()].filter(
        (id) => stored.has(id) || pluginOAuthClient(this.#options.env ?? {}, id) !== undefined,
      ),
    );
  }

  /**
   * After an admin changed provider `providerId`'s client: the copy the connect flow keeps for
   * refreshes (under `@<id>`) takes the client now in force, so users' tokens refresh with it
   * without connecting again.
   */
  async pluginClientChanged(providerId: string): Promise<void> {
    const found = await this.#pluginProvider(providerId);
    if (found === undefined) return;
    await this.#options.db
      .updateTable('upstream_oauth_clients')
      .set({
        client_id: found.client.clientId,
        encrypted_client_secret: this.#options.secrets.encrypt(found.client.clientSecret),
      })
      .where('source_id', '=', `${PLUGIN_OAUTH_PREFIX}${providerId}`)
      .execute();
  }

  /**
   * The plugin provider `providerId` and its client, when both exist: the settings' client
   * (`<ID>_CLIENT_ID` and `_CLIENT_SECRET`) wins over the one an admin stored.
   */
  async #pluginProvider(
    providerId: string,
  ): Promise<
    | { provider: PluginOAuthProvider; client: { clientId: string; clientSecret: string } }
    | undefined
  > {
    const provider = this.#options.pluginProviders?.().get(providerId);
    if (provider === undefined) return undefined;
    const client =
      pluginOAuthClient(this.#options.env ?? {}, providerId) ??
      (await this.#options.providerClients?.client(providerId));
    return client === undefined ? undefined : { provider, client };
  }

  /**
   * Where a connect to a plugin's own OAuth provider starts: its described endpoints, and the
   * operator's client stored (secret encrypted) for the callback and refreshes to read, as a
   * pre-registered client is.
   */
  async #pluginStart(
    key: string,
    providerId: string,
    fetch: FetchLike,
  ): Promise<ConnectStart & { config: OAuthProviderConfig }> {
    const { db, secrets, policy } = this.#options;
    const found = await this.#pluginProvider(providerId);
    if (found === undefined) {
      const known = this.#options.pluginProviders?.().has(providerId) === true;
      throw new Refusal(
        'not_found',
        known
          ? `"${providerId}" is not set up on this gateway: its admin gives it a client in Admin → Providers, or sets ${envPrefix(providerId)}_CLIENT_ID and ${envPrefix(providerId)}_CLIENT_SECRET`
          : `No OAuth provider "${providerId}" is declared by a loaded plugin`,
      );
    }
    const discovered = await describePluginProvider(found.provider, {
      env: this.#options.env ?? {},
      policy,
      fetch,
    });
    const redirectUri = `${this.#options.baseUrl()}${UPSTREAM_CALLBACK_PATH}`;
    const row = {
      client_id: found.client.clientId,
      encrypted_client_secret: secrets.encrypt(found.client.clientSecret),
      redirect_uri: redirectUri,
      metadata: JSON.stringify(discovered.metadata),
    };
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('upstream_oauth_clients')
        .where('source_id', '=', key)
        .where('issuer', '=', discovered.issuer)
        .execute();
      await trx
        .insertInto('upstream_oauth_clients')
        .values({
          source_id: key,
          issuer: discovered.issuer,
          created_at: new Date().toISOString(),
          ...row,
        })
        .onConflict((oc) => oc.columns(['source_id', 'issuer']).doUpdateSet(row))
        .execute();
    });
    return {
      discovered,
      client: { clientId: found.client.clientId, redirectUri },
      config: found.provider.config,
    };
  }

  /**
   * Starts `userId`'s connect to source `sourceId`: discovers, gets the gateway's client, stores
   * the flow (state hashed, PKCE verifier encrypted) and returns the authorization URL to send
   * the browser to.
   *
   * @throws Refusal 404 for no such oauth source, 400 when the upstream's metadata breaks a
   * rule, 503 when it cannot be reached.
   */
  async start(input: {
    userId: string;
    sourceId: string;
    returnTo: ConnectReturn;
  }): Promise<string> {
    const { db, secrets, policy } = this.#options;
    const pluginProviderId = pluginProviderIdOf(input.sourceId);
    const source =
      pluginProviderId !== undefined
        ? undefined
        : this.#options.sources().oauthSource(input.sourceId);
    if (source === undefined && pluginProviderId === undefined) {
      throw new Refusal('not_found', `No upstream source "${input.sourceId}" connects with OAuth`);
    }
    const oauthFetch = createOAuthFetch(policy);
    try {
      const sourceId = source?.id ?? input.sourceId;
      const begun =
        source === undefined
          ? await this.#pluginStart(input.sourceId, pluginProviderId ?? '', oauthFetch.fetch)
          : await this.#sourceStart(source, oauthFetch.fetch);
      const { discovered } = begun;
      const state = randomBytes(32).toString('base64url');
      // Step-up: what an upstream said this user's token lacked is asked for too.
      const scope = joinScopes(discovered.scope, await wantedScopes(db, input.userId, sourceId));
      const { authorizationUrl, codeVerifier } = await authorization(begun, scope, state);
      await keepFlow(db, {
        state,
        userId: input.userId,
        sourceId,
        issuer: discovered.issuer,
        encryptedVerifier: secrets.encrypt(codeVerifier),
        resource: discovered.resource,
        returnTo: input.returnTo,
      });
      return authorizationUrl.href;
    } catch (error) {
      if (Refusal.isInstance(error)) throw error;
      const failure = asDiscoveryError(error);
      this.#options.logger.warn('upstream OAuth connect not started', {
        sourceId: input.sourceId,
        reason: failure.message,
      });
      throw new Refusal(
        failure.kind === 'refused' ? 'bad_request' : 'service_unavailable',
        failure.message,
      );
    } finally {
      await oauthFetch.close();
    }
  }

  /** Where a connect to an upstream MCP source starts: its authorization, and the gateway's client. */
  async #sourceStart(
    source: { id: string; url: string; auth: OAuthUpstreamAuth },
    fetch: FetchLike,
  ): Promise<ConnectStart> {
    const discovered = await discoverAuthorization(source.url, {
      fetch,
      policy: this.#options.policy,
      scopes: source.auth.scopes,
    });
    const client = await clientFor(this.#options, {
      sourceId: source.id,
      discovered,
      redirectUri: `${this.#options.baseUrl()}${UPSTREAM_CALLBACK_PATH}`,
      preRegistered: source.auth.clientId !== undefined,
      metadataDocumentUrl: this.#metadataDocumentUrl(),
      fetch,
    });
    return { discovered, client };
  }

  /**
   * Ends a connect at the callback: takes the flow of `state` (once: a replay finds nothing),
   * checks it is the signed-in `viewerId`'s and still fresh, checks `iss` (RFC 9207), redeems the
   * code with the PKCE verifier and `resource`, stores the tokens as the user's connection and
   * fetches the source's tool list with them.
   *
   * @throws ConnectError saying why; nothing is stored then.
   */
  async finish(input: {
    viewerId: string;
    query: Record<string, string | undefined>;
  }): Promise<{ sourceId: string; returnTo: ConnectReturn }> {
    const { db, secrets, policy, logger } = this.#options;
    const { state, code, error, iss } = input.query;
    const row = await takeFlow(db, state);
    const parsedReturn = returnSchema.safeParse(JSON.parse(row.return_to));
    const flow = {
      sourceId: row.source_id,
      returnTo: parsedReturn.success ? parsedReturn.data : ({ kind: 'web' } as const),
    };
    if (input.viewerId !== row.user_id) {
      throw new ConnectError(
        'session_changed',
        'This connect was started by another Gateway user than the one signed in here, so it was refused.',
        flow,
      );
    }
    const granted = grantedCode(error, code, flow);
    const client = await this.#answeringClient(row, iss, flow);
    const tokens = await redeemCode(
      {
        issuer: row.issuer,
        client,
        code: granted,
        codeVerifier: secrets.decrypt(row.encrypted_verifier),
        resource: row.resource,
        flow,
      },
      policy,
      logger,
    );
    await this.#connected(row, tokens);
    return flow;
  }

  /**
   * The gateway's client at the authorization server the connect went to, once the answer says
   * it came from there (RFC 9207 `iss`, required where the server advertises it).
   */
  async #answeringClient(row: FlowRow, iss: string | undefined, flow: ConnectFlow) {
    const client = await readClient(this.#options, row.source_id, row.issuer);
    if (client === undefined) {
      throw new ConnectError('provider_error', 'The OAuth client of this source is gone.', flow);
    }
    const advertisesIss =
      (client.metadata as Record<string, unknown>)
        .authorization_response_iss_parameter_supported === true;
    if ((iss !== undefined && iss !== row.issuer) || (iss === undefined && advertisesIss)) {
      throw new ConnectError(
        'issuer_mismatch',
        'The answer came from another authorization server than the one asked (RFC 9207 iss), so it was refused.',
        flow,
      );
    }
    return client;
  }

  /** After the code was redeemed: keeps the tokens and fetches the source's tool list with them. */
  async #connected(row: FlowRow, tokens: OAuthTokens): Promise<void> {
    const { db, logger } = this.#options;
    await this.tokens.save({
      userId: row.user_id,
      sourceId: row.source_id,
      tokens,
      issuer: row.issuer,
      resource: row.resource,
    });
    // What a step-up asked for was asked for in this connect.
    await db
      .deleteFrom('upstream_oauth_scopes')
      .where('user_id', '=', row.user_id)
      .where('source_id', '=', row.source_id)
      .execute();
    logger.info('upstream OAuth connected', { sourceId: row.source_id, userId: row.user_id });
    // The gateway holds no token of its own for the upstream: each connect refreshes the list
    // (a plugin's provider has no list: its tools are the plugin's).
    if (pluginProviderIdOf(row.source_id) === undefined) {
      await this.#options.sources().refreshWith(row.source_id, tokens.access_token);
    }
  }
}

/** Where a connect starts: the server's metadata, the gateway's client there, a plugin's settings. */
interface ConnectStart {
  discovered: Discovered;
  client: { clientId: string; redirectUri: string };
  config?: OAuthProviderConfig;
}

/** The connect a callback ends, as a {@link ConnectError} carries it. */
type ConnectFlow = { sourceId: string; returnTo: ConnectReturn };

/** The authorization URL to send the browser to, and the PKCE verifier its callback needs. */
async function authorization(begun: ConnectStart, scope: string | undefined, state: string) {
  const { discovered, client, config } = begun;
  const { authorizationUrl, codeVerifier } = await (await oauthClient()).startAuthorization(
    discovered.issuer,
    {
      metadata: discovered.metadata,
      clientInformation: { client_id: client.clientId },
      redirectUrl: client.redirectUri,
      ...(scope === undefined ? {} : { scope }),
      state,
      ...(discovered.resource === '' ? {} : { resource: new URL(discovered.resource) }),
    },
  );
  if (config !== undefined) withAuthorizationParams(authorizationUrl, config);
  return { authorizationUrl, codeVerifier };
}

/** The code the authorization server granted; a refusal or no code is a {@link ConnectError}. */
function grantedCode(
  error: string | undefined,
  code: string | undefined,
  flow: ConnectFlow,
): string {
  if (error !== undefined) {
    throw new ConnectError(
      error === 'access_denied' ? 'access_denied' : 'provider_error',
      error === 'access_denied'
        ? 'Connecting was cancelled at the authorization server.'
        : `The authorization server refused the connect (${error.slice(0, 100)}).`,
      flow,
    );
  }
  if (code === undefined || code.length > 2000) {
    throw new ConnectError('provider_error', 'The authorization server sent no code.', flow);
  }
  return code;
}

function envPrefix(providerId: string): string {
  return providerId.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}
