import { deleteToolConnections } from '../connections/store.js';
import type { GatewayDatabase } from '../db/index.js';
import { Refusal } from '../errors/refusal.js';
import type { ServerLogger } from '../http/logger.js';
import { oauthToolId, type UpstreamService, type UpstreamStatus } from '../upstream/index.js';
import { forgetSourceOAuth } from '../upstream-oauth/clients.js';
import {
  type PluginCatalog,
  PluginCatalogError,
  type PluginCatalogErrorReason,
} from './plugin-catalog.js';
import type { RegisterSourceBody } from './schemas.js';
import type { RegistrySourceRow } from './tables.js';

/** A stored registration, as the registry routes answer it. */
export interface RegistrySource {
  id: string;
  type: 'plugin' | 'mcp';
  namespace: string;
  /** The plugin; null for an upstream MCP source. */
  pluginId: string | null;
  /** ISO 8601 timestamp. */
  createdAt: string;
}

/** A registration with what it serves on this instance. */
export interface RegistrySourceStatus extends RegistrySource {
  /** False when its plugin is not loaded here (the registration is kept, its tools are not served). */
  mounted: boolean;
  /** The tool paths it serves. */
  tools: string[];
  /** For an upstream MCP source: the upstream and its health here. */
  upstream?: UpstreamStatus;
}

/** What registering a source takes (the body of `POST /api/registry/sources`). */
export type RegisterSourceInput = RegisterSourceBody;

/**
 * The sources each catalog mounted from a stored registration (restore, register, sync), as
 * opposed to ones mounted directly by code embedding the gateway: only these follow the database
 * when a registration is removed elsewhere.
 */
const storedMounts = new WeakMap<PluginCatalog, Set<string>>();

/** Registrations a catalog could not mount, keyed with its version: retried once plugins change. */
const skippedMounts = new WeakMap<PluginCatalog, Set<string>>();

function skippedIn(catalog: PluginCatalog): Set<string> {
  let keys = skippedMounts.get(catalog);
  if (keys === undefined) {
    keys = new Set();
    skippedMounts.set(catalog, keys);
  }
  return keys;
}

function storedIn(catalog: PluginCatalog): Set<string> {
  let ids = storedMounts.get(catalog);
  if (ids === undefined) {
    ids = new Set();
    storedMounts.set(catalog, ids);
  }
  return ids;
}

const statusOf: Record<PluginCatalogErrorReason, 'bad_request' | 'not_found' | 'conflict'> = {
  invalid_plugin: 'bad_request',
  duplicate_plugin: 'conflict',
  duplicate_provider: 'conflict',
  unknown_plugin: 'not_found',
  duplicate_source: 'conflict',
  namespace_taken: 'conflict',
  namespace_reserved: 'bad_request',
  path_outside_namespace: 'bad_request',
  unrepresentable_schema: 'bad_request',
};

/**
 * Plugin source registrations: stored in `registry_sources` and mounted in the
 * {@link PluginCatalog}, so the tools a registration mounts come back after a restart.
 *
 * @example
 * const registry = new RegistryService({ database, plugins: catalog, logger });
 * await registry.restore();
 * await registry.register({ type: 'plugin', id: 'notes', namespace: 'notes', pluginId: 'notes' });
 */
export class RegistryService {
  readonly #database: GatewayDatabase;
  readonly #catalog: PluginCatalog;
  readonly #logger: ServerLogger;
  readonly #upstreams: UpstreamService | undefined;

  constructor(options: {
    database: GatewayDatabase;
    plugins: PluginCatalog;
    logger: ServerLogger;
    /** Upstream MCP sources; without it `type: "mcp"` registrations are neither made nor mounted. */
    upstreams?: UpstreamService;
  }) {
    this.#database = options.database;
    this.#catalog = options.plugins;
    this.#logger = options.logger;
    this.#upstreams = options.upstreams;
  }

  /**
   * Mounts every stored registration whose plugin is loaded. One that cannot be mounted (its
   * plugin is gone, or its tools no longer fit the namespace) is skipped with a warning: a
   * removed plugin must not stop the gateway from starting.
   */
  async restore(): Promise<void> {
    await this.sync();
  }

  /**
   * Brings this instance in step with the stored registrations: mounts the ones it does not serve
   * yet and unmounts the ones removed since, so a registration made or removed through another
   * instance sharing the database applies here too. `restore()` at start, then every
   * `GATEWAY_REGISTRY_SYNC_SECONDS` while the gateway listens. A registration that cannot be
   * mounted is warned about once, not on every pass.
   */
  async sync(): Promise<void> {
    // A registration made or removed here while the rows were read would be undone by a stale
    // read: read again until the catalog stayed the same across one.
    let rows: RegistrySourceRow[];
    // And an upstream's settings changed here meanwhile (PATCH) would be put back by the rows.
    const upstreamEdits = this.#upstreams?.edits ?? 0;
    for (;;) {
      const version = this.#catalog.version;
      rows = await this.#database.db
        .selectFrom('registry_sources')
        .selectAll()
        // Ids order those of one millisecond: every instance takes them in the same order.
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      if (this.#catalog.version === version) break;
    }
    const stored = storedIn(this.#catalog);
    const present = new Set(rows.filter((row) => row.type === 'plugin').map((row) => row.id));
    for (const id of stored) {
      if (present.has(id)) continue;
      stored.delete(id);
      this.#catalog.unmount(id);
      this.#logger.info('registry source removed elsewhere, unmounted', { sourceId: id });
    }
    await this.#upstreams?.sync(rows, upstreamEdits);
    const skipped = skippedIn(this.#catalog);
    for (const row of rows) {
      if (row.type !== 'plugin') continue;
      const source = { id: row.id, namespace: row.namespace, pluginId: row.plugin_id };
      if (this.#catalog.isMounted(row.id)) continue;
      const key = `${row.id}\u0000${row.namespace}\u0000${row.plugin_id}\u0000${this.#catalog.version}`;
      if (skipped.has(key)) continue;
      try {
        this.#catalog.mount(source);
        stored.add(row.id);
      } catch (error) {
        skipped.add(key);
        this.#logger.warn('registry source skipped', {
          sourceId: row.id,
          pluginId: row.plugin_id,
          namespace: row.namespace,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  /**
   * Stores a registration and mounts its plugin.
   *
   * @returns the stored source and the paths of the tools it mounted.
   * @throws Refusal 404 unknown plugin; 409 duplicate id or namespace already registered;
   * 400 a tool path outside the namespace (details: the paths) or a schema that has no JSON
   * Schema form.
   */
  async register(
    input: RegisterSourceInput,
    registrant?: string,
  ): Promise<{ source: RegistrySource; tools: string[] }> {
    await this.#assertFree(input);
    if (input.type === 'mcp') return this.#registerUpstream(input, registrant);
    const mountSource = { id: input.id, namespace: input.namespace, pluginId: input.pluginId };
    catalogErrors(() => this.#catalog.check(mountSource));
    const source: RegistrySource = {
      id: input.id,
      type: 'plugin',
      namespace: input.namespace,
      pluginId: input.pluginId,
      createdAt: new Date().toISOString(),
    };
    const { db } = this.#database;
    try {
      await db
        .insertInto('registry_sources')
        .values({
          id: source.id,
          type: source.type,
          namespace: source.namespace,
          plugin_id: input.pluginId,
          created_at: source.createdAt,
        })
        .execute();
    } catch (error) {
      // Two registrations racing past the check above meet the primary key or unique namespace.
      await this.#assertFree(input);
      throw error;
    }
    try {
      const tools = catalogErrors(() => this.#catalog.mount(mountSource));
      storedIn(this.#catalog).add(source.id);
      this.#logger.info('registry source mounted', {
        sourceId: source.id,
        pluginId: source.pluginId,
        tools: tools.length,
      });
      return { source, tools: tools.map((tool) => tool.path) };
    } catch (error) {
      await db.deleteFrom('registry_sources').where('id', '=', source.id).execute();
      throw error;
    }
  }

  async #registerUpstream(
    input: Extract<RegisterSourceInput, { type: 'mcp' }>,
    registrant: string | undefined,
  ): Promise<{ source: RegistrySource; tools: string[] }> {
    if (this.#upstreams === undefined) {
      throw new Refusal('bad_request', 'This gateway does not serve upstream MCP sources');
    }
    const createdAt = new Date().toISOString();
    try {
      const { tools } = await this.#upstreams.register(
        {
          id: input.id,
          namespace: input.namespace,
          url: input.url,
          auth: input.auth ?? { kind: 'none' },
          approvalRequired: input.approvalRequired ?? [],
          approval: input.approval ?? 'hints',
          serviceAccountAllowed: input.serviceAccountAllowed ?? false,
          allowElicitation: input.allowElicitation,
          allowSampling: input.allowSampling,
        },
        registrant,
      );
      const source: RegistrySource = {
        id: input.id,
        type: 'mcp',
        namespace: input.namespace,
        pluginId: null,
        createdAt,
      };
      return { source, tools };
    } catch (error) {
      // Two registrations racing past the check above meet the primary key or unique namespace.
      if (!Refusal.isInstance(error)) await this.#assertFree(input);
      throw error;
    }
  }

  async #assertFree(input: { id: string; namespace: string }): Promise<void> {
    const taken = await this.#database.db
      .selectFrom('registry_sources')
      .select(['id', 'namespace'])
      .where((eb) => eb.or([eb('id', '=', input.id), eb('namespace', '=', input.namespace)]))
      .execute();
    if (taken.some((row) => row.id === input.id)) {
      throw new Refusal('conflict', `A source "${input.id}" is already registered`);
    }
    const sameNamespace = taken[0];
    if (sameNamespace !== undefined) {
      throw new Refusal(
        'conflict',
        `The namespace "${input.namespace}" is already registered by source "${sameNamespace.id}"`,
      );
    }
  }

  /** Every stored registration, oldest first, with what it serves here. */
  async list(): Promise<RegistrySourceStatus[]> {
    const rows = await this.#database.db
      .selectFrom('registry_sources')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const stored: RegistrySourceStatus[] = rows.map((row) => {
      const upstream = this.#upstreams?.status(row.id);
      return {
        ...sourceOf(row),
        mounted: this.#catalog.isMounted(row.id),
        tools: this.#catalog.pathsOf(row.id),
        ...(upstream === undefined ? {} : { upstream }),
      };
    });
    // Stdio upstreams come from the config file: listed, never stored.
    const configured = (this.#upstreams?.configured() ?? []).flatMap(({ id, namespace }) => {
      const upstream = this.#upstreams?.status(id);
      if (upstream === undefined) return [];
      const source: RegistrySourceStatus = {
        id,
        type: 'mcp',
        namespace,
        pluginId: null,
        createdAt: upstream.toolsFetchedAt ?? new Date(0).toISOString(),
        mounted: this.#catalog.isMounted(id),
        tools: this.#catalog.pathsOf(id),
        upstream,
      };
      return [source];
    });
    return [...stored, ...configured];
  }

  /**
   * Changes an upstream source's settings, here and (through the stored row) on every instance.
   *
   * @throws Refusal 404 when no such registration is stored; 400 for a plugin source or a
   * stdio upstream of the config file (its settings live there).
   */
  async update(
    id: string,
    change: {
      approvalRequired?: string[] | undefined;
      approval?: 'hints' | 'all' | 'listed' | undefined;
      serviceAccountAllowed?: boolean | undefined;
      allowElicitation?: boolean | undefined;
      allowSampling?: boolean | undefined;
    },
  ): Promise<RegistrySourceStatus> {
    const row = await this.#database.db
      .selectFrom('registry_sources')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) {
      if (this.#upstreams?.status(id)?.transport === 'stdio') {
        throw new Refusal(
          'bad_request',
          `Source "${id}" comes from the gateway's config file: change its settings there`,
        );
      }
      throw new Refusal('not_found', `No registered source "${id}"`);
    }
    if (row.type !== 'mcp' || this.#upstreams === undefined) {
      throw new Refusal(
        'bad_request',
        `Source "${id}" is a plugin: approvals and service-account use are declared by its tools`,
      );
    }
    await this.#upstreams.update(id, change);
    this.#logger.info('registry source changed', { sourceId: id });
    const listed = (await this.list()).find((source) => source.id === id);
    if (listed === undefined) throw new Refusal('not_found', `No registered source "${id}"`);
    return listed;
  }

  /**
   * Removes a registration and unmounts its tools.
   *
   * @throws Refusal 404 when no such registration is stored.
   */
  async remove(id: string): Promise<void> {
    const removed = await this.#database.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('registry_sources')
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return undefined;
      // An OAuth upstream's users' tokens go with it: they are for a source no longer served,
      // and so do its client registration and open sign-ins.
      await forgetSourceOAuth(trx, id);
      return deleteToolConnections(trx, oauthToolId(id));
    });
    if (removed === undefined) throw new Refusal('not_found', `No registered source "${id}"`);
    if (removed > 0)
      this.#logger.info('upstream connections removed with their source', {
        sourceId: id,
        connections: removed,
      });
    await this.#upstreams?.remove(id);
    this.#catalog.unmount(id);
    storedIn(this.#catalog).delete(id);
    this.#logger.info('registry source removed', { sourceId: id });
  }
}

function sourceOf(row: RegistrySourceRow): RegistrySource {
  const mcp = row.type === 'mcp';
  return {
    id: row.id,
    type: mcp ? 'mcp' : 'plugin',
    namespace: row.namespace,
    pluginId: mcp ? null : row.plugin_id,
    createdAt: row.created_at,
  };
}

function catalogErrors<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof PluginCatalogError) {
      throw new Refusal(
        statusOf[error.reason],
        error.message,
        // The 400s list what to fix (paths outside the namespace, schema problems).
        statusOf[error.reason] === 'bad_request' ? error.details : undefined,
      );
    }
    throw error;
  }
}
