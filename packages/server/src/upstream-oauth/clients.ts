import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/index.js';
import type { SecretBox } from '../secrets/index.js';
import { type Discovered, OAuthDiscoveryError } from './discovery.js';
import { oauthClient, oauthSchemas } from './sdk.js';
import { joinScopes } from './step-up.js';

/** The OAuth client the gateway is at one authorization server, for one source. */
export interface UpstreamOAuthClient {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  redirectUri: string;
  metadata: AuthorizationServerMetadata;
}

/** What the client store reads and writes with. */
export interface ClientStoreDeps {
  db: Kysely<DatabaseSchema>;
  secrets: Pick<SecretBox, 'encrypt' | 'decrypt'>;
}

/**
 * Keeps an admin's pre-registered client (`auth.clientId`, its secret encrypted) for source
 * `sourceId` until the first connect learns the authorization server it belongs to.
 */
export async function storePreRegisteredClient(
  deps: ClientStoreDeps,
  sourceId: string,
  client: { clientId: string; clientSecret?: string | undefined },
  db: Kysely<DatabaseSchema> = deps.db,
): Promise<void> {
  await db
    .insertInto('upstream_oauth_clients')
    .values({
      source_id: sourceId,
      issuer: '',
      client_id: client.clientId,
      encrypted_client_secret:
        client.clientSecret === undefined ? null : deps.secrets.encrypt(client.clientSecret),
      redirect_uri: '',
      metadata: '{}',
      created_at: new Date().toISOString(),
    })
    .execute();
}

/**
 * The client for `sourceId` at the authorization server `discovered` names, in the MCP
 * authorization spec's order: the one stored for that issuer; else the admin's pre-registered
 * one; else, where the server accepts Client ID Metadata Documents and the gateway has one
 * (`metadataDocumentUrl`, an https address), that URL as the client ID (a public client); else
 * one registered now by dynamic client registration (RFC 7591) with `redirectUri`. Stored for
 * every instance and user after.
 *
 * @example
 * const client = await clientFor(deps, { sourceId, discovered, redirectUri, preRegistered: false, fetch });
 *
 * @throws OAuthDiscoveryError when the server offers neither way and no client was given, or
 * refuses the registration.
 */
export async function clientFor(
  deps: ClientStoreDeps,
  input: ClientRequest,
): Promise<UpstreamOAuthClient> {
  const { db } = deps;
  const { sourceId, discovered, redirectUri } = input;
  const metadataJson = JSON.stringify(discovered.metadata);
  const stored = await readClient(deps, sourceId, discovered.issuer);
  if (stored !== undefined && (input.preRegistered || stored.redirectUri === redirectUri)) {
    if (JSON.stringify(stored.metadata) !== metadataJson) {
      await db
        .updateTable('upstream_oauth_clients')
        .set({ metadata: metadataJson })
        .where('source_id', '=', sourceId)
        .where('issuer', '=', discovered.issuer)
        .execute();
    }
    return { ...stored, metadata: discovered.metadata, redirectUri };
  }
  if (stored !== undefined) {
    // Registered for another redirect URI (the gateway's address changed): register again.
    await db
      .deleteFrom('upstream_oauth_clients')
      .where('source_id', '=', sourceId)
      .where('issuer', '=', discovered.issuer)
      .execute();
  }
  const { clientId, secret } = await newClient(deps, input);
  await db
    .insertInto('upstream_oauth_clients')
    .values({
      source_id: sourceId,
      issuer: discovered.issuer,
      client_id: clientId,
      encrypted_client_secret: secret === undefined ? null : deps.secrets.encrypt(secret),
      redirect_uri: redirectUri,
      metadata: metadataJson,
      created_at: new Date().toISOString(),
    })
    // Another instance registered at the same moment: its client is used, this one dropped.
    .onConflict((oc) => oc.columns(['source_id', 'issuer']).doNothing())
    .execute();
  const kept = await readClient(deps, sourceId, discovered.issuer);
  if (kept === undefined) throw new Error('the OAuth client was not stored');
  return { ...kept, metadata: discovered.metadata, redirectUri };
}

/** What {@link clientFor} needs to find or make the client of one source at one server. */
interface ClientRequest {
  sourceId: string;
  discovered: Discovered;
  redirectUri: string;
  preRegistered: boolean;
  /** The gateway's Client ID Metadata Document URL, when its address is https. */
  metadataDocumentUrl?: string | undefined;
  fetch: FetchLike;
}

/** A client ID and its secret, if it has one. */
interface ClientCredentials {
  clientId: string;
  secret: string | undefined;
}

/** A client not stored for this server yet: the admin's, the metadata document, or a new one. */
async function newClient(deps: ClientStoreDeps, input: ClientRequest): Promise<ClientCredentials> {
  if (input.preRegistered) return preRegisteredClient(deps, input.sourceId);
  if (
    input.discovered.metadata.client_id_metadata_document_supported === true &&
    input.metadataDocumentUrl !== undefined
  ) {
    // The server fetches the document itself when the browser arrives; nothing to send now.
    return { clientId: input.metadataDocumentUrl, secret: undefined };
  }
  return registeredClient(input);
}

/** The client the admin gave for `sourceId`, kept until its server was known. */
async function preRegisteredClient(
  deps: ClientStoreDeps,
  sourceId: string,
): Promise<ClientCredentials> {
  const given = await deps.db
    .selectFrom('upstream_oauth_clients')
    .select(['client_id', 'encrypted_client_secret'])
    .where('source_id', '=', sourceId)
    .where('issuer', '=', '')
    .executeTakeFirst();
  if (given === undefined) {
    throw new OAuthDiscoveryError(
      'refused',
      'The pre-registered OAuth client of this source is missing',
    );
  }
  return {
    clientId: given.client_id,
    secret:
      given.encrypted_client_secret === null
        ? undefined
        : deps.secrets.decrypt(given.encrypted_client_secret),
  };
}

/** A client registered now by dynamic client registration (RFC 7591). */
async function registeredClient(input: ClientRequest): Promise<ClientCredentials> {
  const { discovered, redirectUri } = input;
  const { metadata } = discovered;
  if (metadata.registration_endpoint === undefined) {
    throw new OAuthDiscoveryError(
      'refused',
      metadata.client_id_metadata_document_supported === true
        ? "The upstream's authorization server takes client ID metadata documents, which need the gateway's address (GATEWAY_BASE_URL) to be https, and allows no dynamic client registration; serve the gateway over https, or register the source again with auth.clientId (and clientSecret) of a client registered there"
        : "The upstream's authorization server allows no dynamic client registration; register the source again with auth.clientId (and clientSecret) of a client registered there",
    );
  }
  const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const { registerClient } = await oauthClient();
  const register = (scope: string | undefined) =>
    registerClient(discovered.issuer, {
      metadata,
      clientMetadata: {
        redirect_uris: [redirectUri],
        client_name: 'Gateway',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: methods.includes('client_secret_basic')
          ? 'client_secret_basic'
          : methods.includes('client_secret_post')
            ? 'client_secret_post'
            : 'none',
      },
      ...(scope === undefined ? {} : { scope }),
      fetchFn: input.fetch,
    });
  // Every scope the server offers, not only today's: a client registered for fewer could never
  // be granted more when an upstream asks for it (step-up authorization). A server whose policy
  // refuses some of them to a registering client is asked again for the source's own.
  const registrationScope = joinScopes(discovered.scope, metadata.scopes_supported?.join(' '));
  const registered = await register(registrationScope)
    .catch((error: unknown) => {
      if (error instanceof OAuthDiscoveryError || registrationScope === discovered.scope) {
        throw error;
      }
      return register(discovered.scope);
    })
    .catch((error: unknown) => {
      throw error instanceof OAuthDiscoveryError
        ? error
        : new OAuthDiscoveryError(
            'refused',
            "The upstream's authorization server refused to register the gateway as a client",
          );
    });
  return { clientId: registered.client_id, secret: registered.client_secret };
}

/** The stored client of `sourceId` at `issuer`, with its metadata, or undefined. */
export async function readClient(
  deps: ClientStoreDeps,
  sourceId: string,
  issuer: string,
): Promise<UpstreamOAuthClient | undefined> {
  const row = await deps.db
    .selectFrom('upstream_oauth_clients')
    .selectAll()
    .where('source_id', '=', sourceId)
    .where('issuer', '=', issuer)
    .executeTakeFirst();
  if (row === undefined || issuer === '') return undefined;
  const json: unknown = JSON.parse(row.metadata);
  const { OAuthMetadataSchema, OpenIdProviderDiscoveryMetadataSchema } = await oauthSchemas();
  const parsed = OAuthMetadataSchema.safeParse(json);
  const metadata = parsed.success
    ? parsed.data
    : OpenIdProviderDiscoveryMetadataSchema.safeParse(json).data;
  if (metadata === undefined) return undefined;
  return {
    issuer,
    clientId: row.client_id,
    clientSecret:
      row.encrypted_client_secret === null
        ? undefined
        : deps.secrets.decrypt(row.encrypted_client_secret),
    redirectUri: row.redirect_uri,
    metadata,
  };
}

/**
 * Forgets what an upstream source `sourceId` kept for OAuth: its client registration and the
 * sign-ins still open. Called with the registration's removal, in its transaction.
 */
export async function forgetSourceOAuth(
  db: Kysely<DatabaseSchema>,
  sourceId: string,
): Promise<void> {
  await db.deleteFrom('upstream_oauth_clients').where('source_id', '=', sourceId).execute();
  await db.deleteFrom('upstream_oauth_flows').where('source_id', '=', sourceId).execute();
}
