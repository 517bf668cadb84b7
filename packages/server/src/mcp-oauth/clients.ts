import type { Kysely } from 'kysely';
import type { McpOAuthSettings } from '../config/env-mcp-oauth.js';
import type { DatabaseSchema } from '../db/index.js';
import { endpointsOfClient } from '../mcp-endpoints/index.js';
import type { UrlPolicy } from '../upstream/index.js';
import { fetchClientIdDocument, isClientIdUrl } from './client-id-document.js';
import { checkClientMetadata, type KnownClient } from './client-metadata.js';
import { OAuthError } from './errors.js';

/** A registration never used within this long expires. */
const UNUSED_REGISTRATION_MS = 24 * 60 * 60 * 1000;

/** A new registration, as answered (RFC 7591 section 3.2.1). */
export interface Registration {
  client_id: string;
  client_id_issued_at: number;
  [field: string]: unknown;
}

/**
 * The clients of Gateway's authorization server: those registered dynamically (RFC 7591) and
 * those whose `client_id` is the URL of their Client ID Metadata Document, fetched and cached as
 * its `Cache-Control` allows. Registrations never used expire after a day, and those whose grants
 * are all gone after the refresh token lifetime.
 */
export class ClientRegistry {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #settings: McpOAuthSettings;
  readonly #policy: UrlPolicy;

  constructor(options: {
    db: Kysely<DatabaseSchema>;
    settings: McpOAuthSettings;
    policy: UrlPolicy;
  }) {
    this.#db = options.db;
    this.#settings = options.settings;
    this.#policy = options.policy;
  }

  /**
   * Registers a client from its metadata (RFC 7591).
   *
   * @throws OAuthError `invalid_redirect_uri` or `invalid_client_metadata`.
   */
  async register(input: unknown, now = new Date()): Promise<Registration> {
    const checked = checkClientMetadata(input, this.#settings.redirectHosts);
    await this.sweep(now);
    const clientId = crypto.randomUUID();
    await this.#db
      .insertInto('mcp_oauth_clients')
      .values({
        client_id: clientId,
        kind: 'dcr',
        client_name: checked.name,
        redirect_uris: JSON.stringify(checked.redirectUris),
        application_type: checked.applicationType,
        metadata: JSON.stringify(checked.registered),
        created_at: now.toISOString(),
        last_used_at: null,
        expires_at: null,
      })
      .execute();
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(now.getTime() / 1000),
      ...checked.registered,
    };
  }

  /**
   * The client `clientId`: a registration, or the Client ID Metadata Document at that URL (from
   * the cache while it is fresh).
   *
   * @throws OAuthError `invalid_client` saying why there is none.
   */
  async find(clientId: string, now = new Date()): Promise<KnownClient> {
    if (clientId === '' || clientId.length > 2000) {
      throw new OAuthError('invalid_client', 'client_id is missing or too long');
    }
    const row = await this.#db
      .selectFrom('mcp_oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    const fresh =
      row !== undefined &&
      (row.kind === 'dcr' || (row.expires_at !== null && row.expires_at > now.toISOString()));
    if (row !== undefined && fresh) {
      return {
        clientId,
        kind: row.kind,
        name: row.client_name,
        redirectUris: JSON.parse(row.redirect_uris) as string[],
        applicationType: row.application_type,
      };
    }
    if (!isClientIdUrl(clientId)) {
      throw new OAuthError(
        'invalid_client',
        'No client is registered with this client_id (a registration unused for a day expires); register again',
      );
    }
    const fetched = await fetchClientIdDocument(clientId, this.#settings, this.#policy);
    if (!fetched.ok) throw new OAuthError('invalid_client', fetched.problem);
    const { metadata, maxAgeSeconds } = fetched.document;
    const values = {
      client_name: metadata.name,
      redirect_uris: JSON.stringify(metadata.redirectUris),
      application_type: metadata.applicationType,
      metadata: JSON.stringify(metadata.registered),
      expires_at: new Date(now.getTime() + maxAgeSeconds * 1000).toISOString(),
    };
    await this.#db
      .insertInto('mcp_oauth_clients')
      .values({
        client_id: clientId,
        kind: 'cimd',
        created_at: now.toISOString(),
        last_used_at: null,
        ...values,
      })
      .onConflict((oc) => oc.column('client_id').doUpdateSet(values))
      .execute();
    return {
      clientId,
      kind: 'cimd',
      name: metadata.name,
      redirectUris: metadata.redirectUris,
      applicationType: metadata.applicationType,
    };
  }

  /** Notes that `clientId` was just used (a code issued), which keeps its registration. */
  async touch(clientId: string, now = new Date()): Promise<void> {
    await this.#db
      .updateTable('mcp_oauth_clients')
      .set({ last_used_at: now.toISOString() })
      .where('client_id', '=', clientId)
      .execute();
  }

  /**
   * Deletes registrations no endpoint uses that were never used within a day, or not for the
   * refresh token lifetime, and cached documents that went stale a day ago.
   */
  async sweep(now = new Date()): Promise<void> {
    const unusedBefore = new Date(now.getTime() - UNUSED_REGISTRATION_MS).toISOString();
    const idleBefore = new Date(
      now.getTime() - this.#settings.refreshTokenDays * 24 * 60 * 60 * 1000,
    ).toISOString();
    await this.#db
      .deleteFrom('mcp_oauth_clients')
      .where((eb) =>
        eb.or([
          eb.and([
            eb('kind', '=', 'dcr'),
            eb.or([
              eb.and([eb('last_used_at', 'is', null), eb('created_at', '<', unusedBefore)]),
              eb('last_used_at', '<', idleBefore),
            ]),
            eb.not(eb.exists(endpointsOfClient(eb))),
          ]),
          eb.and([eb('kind', '=', 'cimd'), eb('expires_at', '<', unusedBefore)]),
        ]),
      )
      .execute();
  }
}
