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

/**
 * How long a Client ID Metadata Document that could not be fetched, or was refused, is not
 * fetched again: the authorize endpoint is open to anyone, and each request naming a URL would
 * otherwise make the gateway fetch it. Kept per instance, for this many URLs at most.
 */
export const FAILED_DOCUMENT_MS = 30_000;
const FAILED_DOCUMENTS_KEPT = 1_000;

type Fetched = Awaited<ReturnType<typeof fetchClientIdDocument>>;

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
  /** Documents refused lately, oldest first: the problem, and until when (epoch ms). */
  readonly #failed = new Map<string, { problem: string; until: number }>();
  /** Fetches under way, so that requests naming the same URL at once share one. */
  readonly #fetching = new Map<string, Promise<Fetched>>();

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
    const fetched = await this.#fetchDocument(clientId, now);
    const { metadata, maxAgeSeconds } = fetched;
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

  /**
   * The document at `clientId`, fetched once for requests that ask at the same time; a refusal
   * is remembered for `FAILED_DOCUMENT_MS` and answered again without a fetch.
   *
   * @throws OAuthError `invalid_client` saying why the document cannot be used.
   */
  async #fetchDocument(clientId: string, now: Date) {
    const failed = this.#failed.get(clientId);
    if (failed !== undefined && failed.until > now.getTime()) {
      throw new OAuthError('invalid_client', failed.problem);
    }
    let fetching = this.#fetching.get(clientId);
    if (fetching === undefined) {
      fetching = fetchClientIdDocument(clientId, this.#settings, this.#policy).finally(() =>
        this.#fetching.delete(clientId),
      );
      this.#fetching.set(clientId, fetching);
    }
    const fetched = await fetching;
    if (fetched.ok) {
      this.#failed.delete(clientId);
      return fetched.document;
    }
    const problem = `${fetched.problem}; it is fetched again after ${FAILED_DOCUMENT_MS / 1000} s`;
    this.#failed.delete(clientId);
    this.#failed.set(clientId, { problem, until: now.getTime() + FAILED_DOCUMENT_MS });
    for (const oldest of this.#failed.keys()) {
      if (this.#failed.size <= FAILED_DOCUMENTS_KEPT) break;
      this.#failed.delete(oldest);
    }
    throw new OAuthError('invalid_client', problem);
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
