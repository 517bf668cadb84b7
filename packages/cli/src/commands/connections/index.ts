import type { GatewayApi } from '../../api/gateway-api.js';
import { connectionList, deleted, me, teamConnectionList, toolStatus } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { createColors } from '../../output/color.js';
import { printJson, printTable } from '../../output/table.js';

/** Options of `runConnectionsList()`. */
export interface ConnectionsListOptions extends SignedInOptions {
  /** List the team's connections instead of the user's own. */
  team?: boolean | undefined;
  json?: boolean | undefined;
}

/** One connection as listed; secrets only masked (a team's only for admins). */
export interface ListedConnection {
  /**
   * `secret`: a stored key or token (`gateway connections rm` removes it); `oauth`: an account
   * linked through the provider's sign-in (`id` is the link's), disconnected in the web app.
   */
  kind: 'secret' | 'oauth';
  id: string;
  toolId: string;
  instanceName: string;
  maskedSecret: string | null;
  workspaceId: string | null;
  parentId: string | null;
  team: boolean;
  createdAt: string;
}

/**
 * A linked OAuth account, or a connection to an upstream MCP source, that needs connecting again,
 * and the command that does it.
 */
export interface ReconnectNeeded {
  /** The linked account's provider, or the connection's tool id (`mcp.<source id>`). */
  providerId: string;
  /** The linked account's id, or the connection's. */
  accountId: string;
  /** `gateway connect <id>`: the id `gateway connect` takes. */
  command: string;
  /**
   * `refused`: the provider or upstream refused the sign-in (it serves nothing until reconnected);
   * `more_scope`: a tool of the upstream needs more access than it grants (step-up), `scope` says
   * what the next connect asks for, and the connection keeps serving the other tools.
   */
  reason: 'refused' | 'more_scope';
  scope?: string;
}

/**
 * `gateway connections list`: the signed-in user's connections (`GET /api/connections`) and the
 * OAuth accounts linked to them (`linkedAccounts` of `GET /api/me`, e.g. after `gateway connect
 * gcp`). Each linked account or upstream MCP connection that needs connecting again (`GET
 * /api/tools/status`: refused, or a tool asked for more scope) is named with the command that
 * does it (`--json` puts those under `reconnect`). With `--team`, the team's connections (`GET
 * /api/team/connections`). Secrets masked.
 *
 * @throws CliError (exit 4) when not signed in.
 */
export async function runConnectionsList(
  options: ConnectionsListOptions,
): Promise<ListedConnection[]> {
  const api = await signedInApi(options);
  const { connections, reconnect } = options.team
    ? { connections: await teamConnections(api), reconnect: undefined }
    : await ownConnections(api);
  if (options.json) {
    printJson(options.io, reconnect === undefined ? { connections } : { connections, reconnect });
    return connections;
  }
  printConnections(options, api.base, connections, reconnect);
  return connections;
}

/** The team's connections, from `GET /api/team/connections`. */
async function teamConnections(api: GatewayApi): Promise<ListedConnection[]> {
  const answer = await api.call({
    method: 'GET',
    path: '/api/team/connections',
    schema: teamConnectionList,
  });
  return answer.connections.map((item) => ({
    kind: 'secret' as const,
    id: item.id,
    toolId: item.toolId,
    instanceName: item.instanceName,
    maskedSecret: item.maskedSecret ?? null,
    workspaceId: item.workspaceId,
    parentId: null,
    team: true,
    createdAt: item.createdAt,
  }));
}

/**
 * The user's own connections: their secrets, their linked accounts (only when they act for
 * themselves), and which of those need connecting again.
 */
async function ownConnections(
  api: GatewayApi,
): Promise<{ connections: ListedConnection[]; reconnect: ReconnectNeeded[] }> {
  const userId = await api.userId();
  const [answer, caller] = await Promise.all([
    api.call({
      method: 'GET',
      path: '/api/connections',
      query: { userId },
      schema: connectionList,
    }),
    api.call({ method: 'GET', path: '/api/me', schema: me }),
  ]);
  // An admin's token acting for another user (GATEWAY_USER_ID) sees only that user's secrets.
  const own = caller.kind === 'user' && caller.userId === userId;
  const links = own ? (caller.linkedAccounts ?? []) : [];
  const connections: ListedConnection[] = answer.connections.map((item) => ({
    kind: 'secret' as const,
    id: item.id,
    toolId: item.tool_id,
    instanceName: item.instance_name,
    maskedSecret: item.masked_secret,
    workspaceId: item.workspace_id,
    parentId: item.parent_id,
    team: false,
    createdAt: item.created_at,
  }));
  for (const link of links) {
    connections.push({
      kind: 'oauth',
      id: link.id,
      toolId: link.providerId,
      instanceName: 'linked account',
      maskedSecret: null,
      workspaceId: null,
      parentId: null,
      team: false,
      createdAt: typeof link.createdAt === 'string' ? link.createdAt : link.updatedAt,
    });
  }
  const reconnect: ReconnectNeeded[] = links
    .filter((account) => account.needsReconnect === true)
    .map((account) => ({
      providerId: account.providerId,
      accountId: account.id,
      command: `gateway connect ${account.providerId}`,
      reason: 'refused' as const,
    }));
  if (own && connections.some((item) => item.toolId.startsWith(UPSTREAM_PREFIX))) {
    reconnect.push(...(await upstreamsToReconnect(api, userId)));
  }
  return { connections, reconnect };
}

/** The connections as a table, then what needs connecting again. */
function printConnections(
  options: ConnectionsListOptions,
  base: string,
  connections: ListedConnection[],
  reconnect: ReconnectNeeded[] | undefined,
): void {
  const { io } = options;
  const c = createColors(io);
  const reconnectLines = () => {
    for (const item of reconnect ?? [])
      io.stdout.write(`${c.yellow('!')} ${reconnectLine(item)}\n`);
  };
  if (connections.length === 0) {
    io.stdout.write(
      options.team
        ? 'No team connections; an admin adds one with `gateway connect <tool> --team`.\n'
        : 'No connections yet; add one with `gateway connect <tool>`.\n',
    );
    reconnectLines();
    return;
  }
  printTable(
    io,
    ['ID', 'TOOL', 'NAME', 'SECRET', 'WORKSPACE', 'PARENT'],
    connections.map((item) => [
      item.id,
      item.toolId,
      item.instanceName,
      item.kind === 'oauth' ? 'OAuth' : (item.maskedSecret ?? '-'),
      item.workspaceId ?? '-',
      item.parentId ?? '-',
    ]),
  );
  if (connections.some((item) => item.kind === 'oauth')) {
    io.stdout.write(
      `OAuth accounts are disconnected on the Tools tab of ${base}; \`gateway connections rm\` removes the others.\n`,
    );
  }
  reconnectLines();
}

/** The tool id of a connection to an upstream MCP source: `mcp.<source id>`. */
const UPSTREAM_PREFIX = 'mcp.';

/**
 * The user's connections to upstream MCP sources that need connecting again, from `GET
 * /api/tools/status`: refused by the upstream, or short of a scope a tool asked for.
 */
async function upstreamsToReconnect(api: GatewayApi, userId: string): Promise<ReconnectNeeded[]> {
  const status = await api.call({
    method: 'GET',
    path: '/api/tools/status',
    query: { userId },
    schema: toolStatus,
  });
  const found = new Map<string, ReconnectNeeded>();
  for (const provider of status.plugins.flatMap((plugin) => plugin.providers)) {
    const connection = provider.connections.find((item) => item.parentId === null);
    if (!provider.upstream.startsWith(UPSTREAM_PREFIX) || !connection || !provider.oauth) continue;
    const sourceId = provider.upstream.slice(UPSTREAM_PREFIX.length);
    const base = {
      providerId: provider.upstream,
      accountId: connection.id,
      command: `gateway connect ${sourceId}`,
    };
    if (provider.oauth.needsReconnect) found.set(provider.upstream, { ...base, reason: 'refused' });
    else if (provider.oauth.moreScope !== undefined) {
      found.set(provider.upstream, {
        ...base,
        reason: 'more_scope',
        scope: provider.oauth.moreScope,
      });
    }
  }
  return [...found.values()];
}

/** What to do about one connection that needs connecting again, as one line. */
function reconnectLine(item: ReconnectNeeded): string {
  if (!item.providerId.startsWith(UPSTREAM_PREFIX)) {
    return `Your ${item.providerId} account needs reconnecting: the provider refused to renew your sign-in. Run \`${item.command}\`.`;
  }
  const source = item.providerId.slice(UPSTREAM_PREFIX.length);
  return item.reason === 'more_scope'
    ? `A tool of the upstream MCP server ${source} needs more access than your connection grants (${item.scope}). Run \`${item.command}\` to grant it; its other tools keep working.`
    : `Your connection to the upstream MCP server ${source} needs reconnecting: the upstream refused it. Run \`${item.command}\`.`;
}

/** Options of `runConnectionsRm()`. */
export interface ConnectionsRmOptions extends SignedInOptions {
  id: string;
  /** Remove a team connection (admins). */
  team?: boolean | undefined;
  json?: boolean | undefined;
}

/**
 * `gateway connections rm <id>`: deletes the connection and every connection nested below it
 * (`DELETE /api/connections/:id`), or with `--team` a team connection.
 *
 * @throws CliError: not signed in or not an admin (4), no such connection (1).
 */
export async function runConnectionsRm(options: ConnectionsRmOptions): Promise<string[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const id = encodeURIComponent(options.id);
  const answer = await api.call({
    method: 'DELETE',
    path: options.team ? `/api/team/connections/${id}` : `/api/connections/${id}`,
    ...(options.team ? {} : { query: { userId: await api.userId() } }),
    schema: deleted,
    notFoundHint: `see \`gateway connections list${options.team ? ' --team' : ''}\``,
  });
  if (options.json) {
    printJson(io, answer);
    return answer.deleted;
  }
  const nested = answer.deleted.length - 1;
  io.stdout.write(
    `${createColors(io).green('✓')} Removed connection ${options.id}${nested > 0 ? ` and ${nested} nested below it` : ''}\n`,
  );
  return answer.deleted;
}
