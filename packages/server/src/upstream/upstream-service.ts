import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { GatewayDatabase } from '../db/index.js';
import { Refusal } from '../errors/refusal.js';
import type { ServerLogger } from '../http/logger.js';
import { PluginCatalogError } from '../registry/catalog-error.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import { updateUpstreamSource } from '../registry/source-store.js';
import type { RegistrySourceRow } from '../registry/tables.js';
import type { TokenVendor } from '../vending/index.js';
import type { UpstreamHealth } from './circuit-breaker.js';
import { type FederatedSource, federatedCredential } from './federation.js';
import { type Live, liveSource, loadUpstreamClient } from './live-source.js';
import type { UpstreamNotice } from './notice.js';
import type { OAuthUpstreamAuth, UpstreamOAuthHooks } from './oauth-hooks.js';
import { offersAnything, storedOffers } from './offers.js';
import { storedAuth, storeRegistration } from './stored-upstream.js';
import {
  type ApprovalMode,
  type StdioUpstreamConfig,
  type StoredUpstream,
  storedUpstreamSchema,
  type UpstreamAuth,
  type UpstreamAuthInput,
  type UpstreamTarget,
} from './target.js';
import {
  fetchToolList,
  listingCredential,
  listingFailureReason,
  mountCached,
  mountedTools,
  safeJson,
} from './tool-lists.js';
import { checkUpstreamUrl, type UrlPolicy } from './url-policy.js';

/** Told what a source said of its resources and prompts (see {@link UpstreamNotice}). */
export type NoticeListener = (source: FederatedSource, notice: UpstreamNotice) => void;

/** What registering an upstream MCP source takes. */
export interface RegisterUpstreamInput {
  id: string;
  namespace: string;
  url: string;
  auth: UpstreamAuthInput;
  /** Upstream tool names that ask for approval whatever their annotations say. */
  approvalRequired: string[];
  /** Which other tools ask for approval. */
  approval: ApprovalMode;
  serviceAccountAllowed: boolean;
  /** Whether its questions reach the calling user (default true). */
  allowElicitation?: boolean | undefined;
  /** Whether its sampling requests reach the calling user's client (default true). */
  allowSampling?: boolean | undefined;
}

/** An upstream source's state on this instance. */
export interface UpstreamStatus {
  transport: 'http' | 'stdio';
  url: string | null;
  auth: UpstreamAuth | null;
  health: UpstreamHealth;
  /** When the cached tool list was fetched (ISO 8601), or null when never. */
  toolsFetchedAt: string | null;
  /** Upstream tool names that always ask for approval. */
  approvalRequired: string[];
  /** Which other tools ask for approval. */
  approval: ApprovalMode;
  serviceAccountAllowed: boolean;
  allowElicitation: boolean;
  allowSampling: boolean;
  /** Each served path with the name the upstream gives it, where the two differ. */
  mappedNames: Record<string, string>;
}

/** What the service is made from. */
export interface UpstreamServiceOptions {
  database: GatewayDatabase;
  plugins: PluginCatalog;
  logger: ServerLogger;
  tokens: Pick<TokenVendor, 'getToken'>;
  policy: UrlPolicy;
  maxBytes: number;
  /** How often every tool list is fetched again while listening; 0: only on `list_changed`. */
  refreshMs: number;
  /** How long an HTTP upstream may take to accept a POST that asks nothing of its own. */
  messageTimeoutMs?: number | undefined;
  /** How long an HTTP upstream's `server/discover` or `initialize` may take (default 15 s). */
  connectTimeoutMs?: number | undefined;
  /** Per-user OAuth to upstreams (`auth: { kind: "oauth" }`); without it such sources are refused. */
  oauth?: UpstreamOAuthHooks | undefined;
  /** The gateway's address, for the "connect it" messages. */
  baseUrl?: () => string;
}

/**
 * Upstream MCP servers as sources (issue 16): registered through the API (`type: "mcp"`, stored
 * in `registry_sources`) or named in the operator's config (stdio, never stored). Their tool
 * lists are fetched at registration, kept in `upstream_tools` so every instance serves them
 * without asking, fetched again on `notifications/tools/list_changed` and every `refreshMs`, and
 * mounted in the {@link PluginCatalog} like plugin tools, so roles, service-account rules and
 * `tools/list` treat them alike.
 */
export class UpstreamService {
  readonly #options: UpstreamServiceOptions;
  readonly #live = new Map<string, Live>();
  /** Sources a registration is listing or storing: closed with the service too. */
  readonly #registering = new Set<Live>();
  #closed = false;
  readonly #noticeListeners = new Set<NoticeListener>();
  #schedule: ReturnType<typeof setInterval> | undefined;
  #edits = 0;

  constructor(options: UpstreamServiceOptions) {
    this.#options = options;
  }

  /**
   * How many registrations, setting changes and removals this instance has made: a
   * {@link UpstreamService.sync} is given the count from before it read its rows, and skips its
   * pass when a change here began since (its rows may predate the change and would undo it).
   */
  get edits(): number {
    return this.#edits;
  }

  /**
   * Registers an HTTP upstream: checks its URL, fetches its tool list (with the credential the
   * registering user, or the team or server, has for its provider), stores both and mounts its
   * tools.
   *
   * @throws Refusal 400 for a refused URL; 409 id or namespace taken; 503
   * (`service_unavailable`) when the tool list cannot be fetched, saying why.
   */
  async register(
    input: RegisterUpstreamInput,
    registrant: string | undefined,
  ): Promise<{ tools: string[] }> {
    const checked = checkUpstreamUrl(input.url, this.#options.policy);
    if (!checked.ok) throw new Refusal('bad_request', checked.problem);
    if (this.#live.has(input.id) || this.#options.plugins.isMounted(input.id)) {
      throw new Refusal('conflict', `A source "${input.id}" is already registered`);
    }
    const auth = storedAuth(input.auth);
    const target: UpstreamTarget = { kind: 'http', url: checked.url.href, auth };
    const settings = {
      approvalRequired: input.approvalRequired,
      approval: input.approval,
      serviceAccountAllowed: input.serviceAccountAllowed,
      allowElicitation: input.allowElicitation ?? true,
      allowSampling: input.allowSampling ?? true,
      // Its list is fetched again with the same admin's credential (their own, else the team's).
      ...(auth.kind === 'header' && registrant !== undefined ? { listedBy: registrant } : {}),
    };
    const { oauth } = this.#options;
    if (auth.kind === 'oauth') {
      if (oauth === undefined) {
        throw new Refusal('bad_request', 'This gateway does not connect to OAuth upstreams');
      }
      // No user token exists yet: the list is fetched when the first user connects.
      await oauth.check(checked.url.href, auth);
    }
    await loadUpstreamClient();
    const live = this.#liveFor(input.id, input.namespace, target, settings);
    // Until it is kept, a stop closes it from here: while it is listed and while it is stored.
    this.#registering.add(live);
    try {
      const listed =
        auth.kind === 'oauth' ? [] : await this.#firstList(live, auth, checked.url, registrant);
      const stored: StoredUpstream = { url: checked.url.href, auth, ...settings };
      return await this.#mountAndStore(input, live, stored, listed);
    } finally {
      this.#registering.delete(live);
    }
  }

  /**
   * Mounts a registration's tools, then stores it and keeps it here; a gateway that stopped
   * meanwhile has it stored (for the other instances) and closed.
   *
   * @throws Refusal 400 or 409 when the catalog refuses the mount; whatever storing throws.
   */
  async #mountAndStore(
    input: RegisterUpstreamInput,
    live: Live,
    stored: StoredUpstream,
    listed: McpTool[],
  ): Promise<{ tools: string[] }> {
    const tools = mountedTools(this.#options, input.id, live, listed);
    // The mount is checked before anything is stored, so a taken namespace stores nothing.
    try {
      this.#options.plugins.mountTools({ id: input.id, namespace: input.namespace }, tools);
    } catch (error) {
      await live.upstream.close();
      throw catalogError(error);
    }
    const fetchedAt = new Date().toISOString();
    live.offers = live.upstream.offers ?? {};
    try {
      await storeRegistration(this.#options.database, this.#options.oauth, {
        id: input.id,
        namespace: input.namespace,
        auth: input.auth,
        stored,
        listed,
        capabilities: JSON.stringify(live.offers),
        fetchedAt,
      });
    } catch (error) {
      this.#options.plugins.unmount(input.id);
      await live.upstream.close();
      throw error;
    }
    if (this.#closed) {
      await live.upstream.close();
      return { tools: tools.map((tool) => tool.path) };
    }
    live.fetchedAt = stored.auth.kind === 'oauth' ? null : fetchedAt;
    this.#keep(input.id, live, stored);
    this.#options.logger.info('upstream source registered', {
      sourceId: input.id,
      tools: tools.length,
    });
    return { tools: tools.map((tool) => tool.path) };
  }

  /**
   * The tool list of `live`, registered now by `registrant` with `auth`; a gateway that stops
   * meanwhile stops fetching it.
   *
   * @throws Refusal `service_unavailable` when it cannot be fetched, saying why.
   */
  async #firstList(
    live: Live,
    auth: UpstreamAuth,
    url: URL,
    registrant: string | undefined,
  ): Promise<McpTool[]> {
    try {
      const credential = await listingCredential(this.#options.tokens, auth, registrant);
      return await live.upstream.listTools(credential);
    } catch (error) {
      await live.upstream.close();
      const reason = await listingFailureReason(error);
      throw new Refusal(
        'service_unavailable',
        `The tool list of ${url.origin}${url.pathname} could not be fetched: ${reason}`,
      );
    }
  }

  /** Keeps `live` as the stored source `id`, registered here: a change a sync begun before skips. */
  #keep(id: string, live: Live, stored: StoredUpstream): void {
    this.#edits += 1;
    live.stored = true;
    live.storedJson = JSON.stringify(stored);
    this.#live.set(id, live);
  }

  /**
   * Brings stored `mcp` registrations in step on this instance: mounts new ones from the cached
   * tool list, remounts those whose list another instance refreshed, unmounts removed ones.
   * `editsBefore` is {@link UpstreamService.edits} from before `rows` were read: when a change
   * made here began since, the pass does nothing (the next one reads rows that hold it).
   */
  async sync(rows: readonly RegistrySourceRow[], editsBefore: number): Promise<void> {
    const present = new Set<string>();
    const cached = await this.#options.database.db
      .selectFrom('upstream_tools')
      .selectAll()
      .execute();
    const cache = new Map(cached.map((row) => [row.source_id, row]));
    if (rows.some((row) => row.type === 'mcp')) await loadUpstreamClient();
    if (this.#edits !== editsBefore) return;
    for (const row of rows) {
      if (row.type !== 'mcp' || row.upstream === null) continue;
      present.add(row.id);
      const stored = storedUpstreamSchema.safeParse(safeJson(row.upstream));
      if (!stored.success) {
        this.#options.logger.warn('stored upstream source unreadable, skipped', {
          sourceId: row.id,
        });
        continue;
      }
      const entry = cache.get(row.id);
      let live = this.#live.get(row.id);
      if (
        live !== undefined &&
        live.fetchedAt === (entry?.fetched_at ?? null) &&
        live.storedJson === row.upstream
      ) {
        continue;
      }
      const { url, auth, ...settings } = stored.data;
      live ??= this.#liveFor(row.id, row.namespace, { kind: 'http', url, auth }, settings);
      // Settings changed through another instance (PATCH) apply here; URL and auth never change.
      live.settings = settings;
      live.storedJson = row.upstream;
      live.stored = true;
      live.offers = storedOffers(entry?.capabilities);
      this.#live.set(row.id, live);
      mountCached(this.#options, row.id, live, entry?.tools, entry?.fetched_at ?? null);
    }
    for (const [id, live] of this.#live) {
      if (live.stored && !present.has(id)) await this.remove(id);
    }
  }

  /**
   * Starts the stdio upstreams the operator's config names, fetching each one's tools. One that
   * cannot start is warned about and retried with the next scheduled refresh.
   */
  async startConfigured(configs: readonly StdioUpstreamConfig[]): Promise<void> {
    if (configs.length > 0) await loadUpstreamClient();
    await Promise.all(
      configs.map(async (config) => {
        const target: UpstreamTarget = {
          kind: 'stdio',
          command: config.command,
          args: config.args,
          env: config.env,
          ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
          startTimeoutMs: config.startTimeoutMs,
        };
        const live = this.#liveFor(config.id, config.namespace, target, config);
        this.#live.set(config.id, live);
        await this.refresh(config.id);
      }),
    );
  }

  /**
   * Fetches a source's tool list again; when it changed, stores it (for every instance) and
   * remounts. Never throws: a failure is logged and counted against the upstream's health.
   */
  refresh(id: string): Promise<void> {
    const live = this.#live.get(id);
    if (live === undefined) return Promise.resolve();
    live.refreshing ??= this.#refresh(id, live).finally(() => {
      live.refreshing = undefined;
    });
    return live.refreshing;
  }

  /**
   * Fetches an oauth source's tool list with `token`, the token of a user who has just connected
   * (the gateway has no token of its own for it), and stores it as a refresh does. Never throws.
   */
  refreshWith(id: string, token: string): Promise<void> {
    const live = this.#live.get(id);
    if (live === undefined) return Promise.resolve();
    return this.#refresh(id, live, token);
  }

  /** An HTTP source whose users connect with OAuth, or undefined. */
  oauthSource(id: string): { id: string; url: string; auth: OAuthUpstreamAuth } | undefined {
    const target = this.#live.get(id)?.target;
    if (target?.kind !== 'http' || target.auth.kind !== 'oauth') return undefined;
    return { id, url: target.url, auth: target.auth };
  }

  /** Every HTTP source whose users connect with OAuth: id and whether its tools are known yet. */
  oauthSources(): { id: string; namespace: string; toolsFetchedAt: string | null }[] {
    return [...this.#live]
      .filter(([, live]) => live.target.kind === 'http' && live.target.auth.kind === 'oauth')
      .map(([id, live]) => ({ id, namespace: live.namespace, toolsFetchedAt: live.fetchedAt }));
  }

  async #refresh(id: string, live: Live, token?: string): Promise<void> {
    let fetched: Awaited<ReturnType<typeof fetchToolList>>;
    try {
      fetched = await fetchToolList(this.#options, id, live, token);
    } catch (error) {
      // The database, reading or storing the list. Callers run refreshes in the background (the
      // schedule, list_changed): a rejection there would end the process. The tools stay as they
      // are until the next refresh.
      this.#options.logger.warn('upstream tool list not stored', {
        sourceId: id,
        reason: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    if (fetched === undefined || this.#live.get(id) !== live) return;
    live.offers = storedOffers(fetched.capabilities);
    mountCached(this.#options, id, live, fetched.json, fetched.fetchedAt);
  }

  /**
   * Changes a stored HTTP source's settings: stores them (other instances apply them with their
   * next sync) and mounts its tools again with them.
   *
   * @throws Refusal 404 when the source is not a stored upstream known here.
   */
  async update(
    id: string,
    change: {
      approvalRequired?: string[] | undefined;
      approval?: ApprovalMode | undefined;
      serviceAccountAllowed?: boolean | undefined;
      allowElicitation?: boolean | undefined;
      allowSampling?: boolean | undefined;
    },
  ): Promise<void> {
    this.#edits += 1;
    const live = this.#live.get(id);
    if (live === undefined || !live.stored || live.target.kind !== 'http') {
      throw new Refusal('not_found', `No registered upstream source "${id}"`);
    }
    const settings = {
      approvalRequired: change.approvalRequired ?? live.settings.approvalRequired,
      approval: change.approval ?? live.settings.approval,
      serviceAccountAllowed: change.serviceAccountAllowed ?? live.settings.serviceAccountAllowed,
      allowElicitation: change.allowElicitation ?? live.settings.allowElicitation,
      allowSampling: change.allowSampling ?? live.settings.allowSampling,
      ...(live.settings.listedBy === undefined ? {} : { listedBy: live.settings.listedBy }),
    };
    const stored: StoredUpstream = { url: live.target.url, auth: live.target.auth, ...settings };
    const json = JSON.stringify(stored);
    const { db } = this.#options.database;
    await updateUpstreamSource(db, id, json);
    live.settings = settings;
    live.storedJson = json;
    const cached = await db
      .selectFrom('upstream_tools')
      .selectAll()
      .where('source_id', '=', id)
      .executeTakeFirst();
    mountCached(this.#options, id, live, cached?.tools, cached?.fetched_at ?? live.fetchedAt);
  }

  /** Unmounts a source and closes its connections (or stops its process). */
  async remove(id: string): Promise<void> {
    this.#edits += 1;
    const live = this.#live.get(id);
    if (live === undefined) return;
    this.#live.delete(id);
    clearTimeout(live.refreshTimer);
    this.#options.plugins.unmount(id);
    await live.upstream.close();
  }

  /**
   * The source `id` as resources, prompts and completions are federated from it, when it is an
   * upstream known here that offers any of them.
   */
  federated(id: string): FederatedSource | undefined {
    const live = this.#live.get(id);
    if (live === undefined || !offersAnything(live.offers)) return undefined;
    return { id, namespace: live.namespace, offers: live.offers };
  }

  /** Whether any upstream known here offers resources, prompts or completions. */
  get federates(): boolean {
    for (const live of this.#live.values()) if (offersAnything(live.offers)) return true;
    return false;
  }

  /**
   * Sends `method` to source `id` for `subject` (a user or service account id), with the
   * credential its tool calls would send ({@link federatedCredential}).
   *
   * @throws Refusal 404 when `id` is not an upstream known here; AuthRequiredError without a
   *   credential; whatever {@link Upstream.request} throws.
   */
  async forward(
    id: string,
    subject: string,
    method: string,
    params: Record<string, unknown>,
    options: {
      signal?: AbortSignal | undefined;
      /** Told the credential before it is sent, to mask it in what comes back. */
      remember?: ((credential: string) => void) | undefined;
    } = {},
  ): Promise<unknown> {
    const live = this.#live.get(id);
    if (live === undefined) throw new Refusal('not_found', `No upstream source "${id}"`);
    const { credential, provider } = await federatedCredential(this.#options, id, live, subject);
    if (credential !== undefined) options.remember?.(credential);
    return live.upstream.request(method, params, credential, { signal: options.signal, provider });
  }

  /**
   * Calls `listener` with what any source says of its resources and prompts (lists changed, a
   * watched resource updated).
   *
   * @returns a function that removes the listener.
   */
  onNotice(listener: NoticeListener): () => void {
    this.#noticeListeners.add(listener);
    return () => this.#noticeListeners.delete(listener);
  }

  /** Whether `id` is an upstream source known here. */
  has(id: string): boolean {
    return this.#live.has(id);
  }

  /** A source's state here, or undefined when it is not an upstream known here. */
  status(id: string): UpstreamStatus | undefined {
    const live = this.#live.get(id);
    if (live === undefined) return undefined;
    const { target } = live;
    return {
      transport: target.kind,
      url: target.kind === 'http' ? target.url : null,
      auth: target.kind === 'http' ? target.auth : null,
      health: live.upstream.health,
      toolsFetchedAt: live.fetchedAt,
      approvalRequired: [...live.settings.approvalRequired],
      approval: live.settings.approval,
      serviceAccountAllowed: live.settings.serviceAccountAllowed,
      allowElicitation: live.settings.allowElicitation,
      allowSampling: live.settings.allowSampling,
      mappedNames: live.mapped,
    };
  }

  /** Configured stdio upstreams, for the registry list (they have no stored row). */
  configured(): { id: string; namespace: string }[] {
    return [...this.#live]
      .filter(([, live]) => !live.stored)
      .map(([id, live]) => ({ id, namespace: live.namespace }));
  }

  /** Fetches every tool list again every `refreshMs`, while the gateway listens. */
  startSchedule(): void {
    if (this.#options.refreshMs <= 0 || this.#schedule !== undefined) return;
    this.#schedule = setInterval(() => {
      for (const id of this.#live.keys()) void this.refresh(id);
    }, this.#options.refreshMs);
    this.#schedule.unref();
  }

  /** Stops the schedule and every upstream's connections (the gateway is stopping). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#schedule);
    this.#schedule = undefined;
    const all = [...this.#live.values(), ...this.#registering];
    this.#live.clear();
    this.#registering.clear();
    for (const live of all) clearTimeout(live.refreshTimer);
    await Promise.all(all.map((live) => live.upstream.close()));
  }

  #liveFor(
    id: string,
    namespace: string,
    target: UpstreamTarget,
    settings: Live['settings'],
  ): Live {
    return liveSource(
      { id, namespace, target, settings },
      this.#options,
      () => this.refresh(id),
      (notice) => this.#notice(id, notice),
    );
  }

  #notice(id: string, notice: UpstreamNotice): void {
    const live = this.#live.get(id);
    if (live === undefined) return;
    const source = { id, namespace: live.namespace, offers: live.offers };
    for (const listener of this.#noticeListeners) {
      try {
        listener(source, notice);
      } catch {
        // A listener's failure must not stop the others.
      }
    }
  }
}

function catalogError(error: unknown): unknown {
  if (error instanceof PluginCatalogError) {
    return new Refusal(
      error.reason === 'path_outside_namespace' ? 'bad_request' : 'conflict',
      error.message,
    );
  }
  return error;
}
