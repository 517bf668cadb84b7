import { AuthRequiredError } from '@gateway/sdk';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { GatewayDatabase } from '../db/index.js';
import type { ServerLogger } from '../http/logger.js';
import type { MountedTool } from '../registry/mounted-tool.js';
import type { PluginCatalog } from '../registry/plugin-catalog.js';
import { CallFailure } from '../tool-sources/index.js';
import type { TokenVendor } from '../vending/index.js';
import type { Live } from './live-source.js';
import { oauthToolId, type UpstreamOAuthHooks } from './oauth-hooks.js';
import type { UpstreamAuth, UpstreamTarget } from './target.js';
import { upstreamTools } from './tool-names.js';
import { providersOf, UpstreamTool } from './upstream-tool.js';

const listedToolsSchema = z.array(z.looseObject({ name: z.string() }));

/** What mounting a source's tools takes. */
export interface MountOptions {
  plugins: Pick<PluginCatalog, 'mountTools'>;
  logger: ServerLogger;
  /** Per-user OAuth to upstreams, which the tools of an oauth source ask for their token. */
  oauth?: UpstreamOAuthHooks | undefined;
  /** The gateway's address, for the "connect it" messages. */
  baseUrl?: () => string;
}

/** What fetching a source's tool list takes. */
export interface ListingOptions {
  database: GatewayDatabase;
  logger: ServerLogger;
  tokens: Pick<TokenVendor, 'getToken'>;
  /** Per-user OAuth to upstreams, for a connected user's token to list an oauth source with. */
  oauth?: UpstreamOAuthHooks | undefined;
}

/**
 * Fetches a source's tool list again (with `token`, else the credential it is listed with) and,
 * for a stored source, keeps it in `upstream_tools` for every instance. A list that cannot be
 * fetched is logged (the upstream counts it against its health), not thrown.
 *
 * @returns the list to mount and when it was fetched; undefined when there is nothing to mount
 *   (not fetched, or the stored list is the same).
 * @throws whatever the database throws while reading or storing the list.
 */
export async function fetchToolList(
  options: ListingOptions,
  id: string,
  live: Pick<Live, 'upstream' | 'target' | 'stored' | 'fetchedAt' | 'settings'>,
  token: string | undefined,
): Promise<{ json: string; fetchedAt: string; capabilities: string } | undefined> {
  let listed: McpTool[];
  const auth = authOf(live.target);
  try {
    // An oauth source is listed with a user's token: the connecting user's, else (scheduled,
    // list_changed) a connected user's; with none, its tools stay as they are. A header source is
    // listed as at its registration: the registering admin's own credential, else the team's,
    // else the server key.
    const credential =
      auth.kind === 'oauth'
        ? (token ?? (await options.oauth?.listingToken(id)))
        : (token ?? (await listingCredential(options.tokens, auth, live.settings.listedBy)));
    if (auth.kind === 'oauth' && credential === undefined) return undefined;
    listed = await live.upstream.listTools(credential);
  } catch (error) {
    options.logger.warn('upstream tool list not refreshed', {
      sourceId: id,
      reason: await listingFailureReason(error),
    });
    return undefined;
  }
  const fetchedAt = new Date().toISOString();
  const json = JSON.stringify(listed);
  const capabilities = JSON.stringify(live.upstream.offers ?? {});
  if (live.stored) {
    const { db } = options.database;
    const previous = await db
      .selectFrom('upstream_tools')
      .select(['tools', 'capabilities'])
      .where('source_id', '=', id)
      .executeTakeFirst();
    if (
      previous?.tools === json &&
      previous.capabilities === capabilities &&
      live.fetchedAt !== null
    ) {
      return undefined;
    }
    await db
      .insertInto('upstream_tools')
      .values({ source_id: id, tools: json, fetched_at: fetchedAt, capabilities })
      .onConflict((oc) =>
        oc.column('source_id').doUpdateSet({ tools: json, fetched_at: fetchedAt, capabilities }),
      )
      .execute();
  }
  return { json, fetchedAt, capabilities };
}

/**
 * Mounts a source's tools from a tool list as stored (`json`; unreadable or none: no tools) in the
 * catalog, and records when it was fetched. Never throws: a mount the catalog refuses is logged.
 */
export function mountCached(
  options: MountOptions,
  id: string,
  live: Live,
  json: string | undefined,
  fetchedAt: string | null,
): void {
  const parsed = listedToolsSchema.safeParse(safeJson(json ?? '[]'));
  // Unknown fields pass through; the MCP tool type describes what the upstream listed.
  const listed = parsed.success ? (parsed.data as McpTool[]) : [];
  const tools = mountedTools(options, id, live, listed);
  try {
    options.plugins.mountTools({ id, namespace: live.namespace }, tools);
    live.fetchedAt = fetchedAt;
  } catch (error) {
    options.logger.warn('upstream source not mounted', {
      sourceId: id,
      reason: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * The tools of a source as the catalog mounts them, from the list its upstream gave: named in its
 * namespace, asking for approval when annotated destructive or named in its settings, each an
 * {@link UpstreamTool}. Records on `live` the served paths whose upstream names differ.
 */
export function mountedTools(
  options: Pick<MountOptions, 'oauth' | 'baseUrl'>,
  id: string,
  live: Pick<Live, 'upstream' | 'target' | 'namespace' | 'settings' | 'mapped'>,
  listed: readonly McpTool[],
): MountedTool[] {
  const auth = authOf(live.target);
  const credentials = { id, authProviders: providersOf(auth, id) };
  const asks = asksApproval(live.settings);
  const tools = upstreamTools({
    sourceId: id,
    namespace: live.namespace,
    listed,
    destructive: asks,
    serviceAccountAllowed: live.settings.serviceAccountAllowed,
    authProvider:
      auth.kind === 'header' ? auth.provider : auth.kind === 'oauth' ? oauthToolId(id) : undefined,
    sourceFor: (tool, path) =>
      new UpstreamTool({
        upstream: live.upstream,
        upstreamName: tool.name,
        path,
        auth,
        approval: asks(tool),
        credentials,
        oauth: options.oauth,
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        definition: tool,
        namespace: live.namespace,
      }),
  });
  const mapped: Record<string, string> = {};
  for (const tool of tools) {
    const source = tool.source;
    if (
      source instanceof UpstreamTool &&
      tool.path !== `${live.namespace}.${source.upstreamName}`
    ) {
      mapped[tool.path] = source.upstreamName;
    }
  }
  live.mapped = mapped;
  return tools;
}

/**
 * Whether a call of an upstream's tool asks for approval first, by the source's settings: a tool
 * named in `approvalRequired` always does, whatever its upstream claims; else by `approval` mode.
 * Under `hints`, an upstream that says nothing gets MCP's defaults (`readOnlyHint: false`,
 * `destructiveHint: true`): it asks.
 */
export function asksApproval(
  settings: Pick<Live['settings'], 'approvalRequired' | 'approval'>,
): (tool: Pick<McpTool, 'name' | 'annotations'>) => boolean {
  const listed = new Set(settings.approvalRequired);
  return (tool) => {
    if (listed.has(tool.name)) return true;
    if (settings.approval === 'all') return true;
    if (settings.approval === 'listed') return false;
    const hints = tool.annotations;
    return hints?.readOnlyHint !== true && hints?.destructiveHint !== false;
  };
}

/**
 * The credential a tool list is fetched with: for a `header` source, the registering user's
 * own connection, else the team connection, else the server's key (no user: the last two).
 *
 * @throws AuthRequiredError when none of those is there; whatever else `getToken` throws.
 */
export async function listingCredential(
  tokens: Pick<TokenVendor, 'getToken'>,
  auth: UpstreamAuth,
  registrant: string | undefined,
): Promise<string | undefined> {
  if (auth.kind !== 'header') return undefined;
  const provider = providersOf(auth, '')[0];
  return tokens.getToken(registrant ?? '', auth.provider, {
    authProvider: provider,
  });
}

/**
 * Why a tool list could not be fetched, for a log line or an admin's error. Async: the reasons
 * of the MCP SDKs' errors load with them, not at the gateway's start (`start-up.test.ts`).
 */
export async function listingFailureReason(error: unknown): Promise<string> {
  if (error instanceof CallFailure)
    return error.message.replace(/^The upstream MCP server of source "[^"]*" /, 'it ');
  if (AuthRequiredError.isInstance(error)) {
    return 'no credential for its provider is available to the gateway (connect one, or set a team connection or API key)';
  }
  // The real reason where one is known: a stdio process that did not start (its exit code and
  // stderr, or the start limit), an address that cannot be reached.
  const { reasonOf } = await import('./failure-reasons.js');
  return `it ${reasonOf(error)}`;
}

/** `text` parsed as JSON; undefined when it is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How a source's calls are authorized: an HTTP source's `auth`; a stdio source needs none. */
function authOf(target: UpstreamTarget): UpstreamAuth {
  return target.kind === 'http' ? target.auth : { kind: 'none' };
}
