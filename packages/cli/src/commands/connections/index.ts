import { connectionList, deleted, me, teamConnectionList } from '../../api/schemas.js';
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

/** A linked OAuth account whose provider refused to renew it, and the command that fixes it. */
export interface ReconnectNeeded {
  providerId: string;
  accountId: string;
  /** `gateway connect <providerId>`: the id `gateway connect` takes. */
  command: string;
}

/**
 * `gateway connections list`: the signed-in user's connections (`GET /api/connections`) and the
 * OAuth accounts linked to them (`linkedAccounts` of `GET /api/me`, e.g. after `gateway connect
 * gcp`), each linked account that needs reconnecting named with the command that reconnects it
 * (`--json` puts those under `reconnect`); or with `--team` the team's (`GET
 * /api/team/connections`). Secrets masked.
 *
 * @throws CliError (exit 4) when not signed in.
 */
export async function runConnectionsList(
  options: ConnectionsListOptions,
): Promise<ListedConnection[]> {
  const { io } = options;
  const api = await signedInApi(options);
  let connections: ListedConnection[];
  let reconnect: ReconnectNeeded[] | undefined;
  if (options.team) {
    const answer = await api.call({
      method: 'GET',
      path: '/api/team/connections',
      schema: teamConnectionList,
    });
    connections = answer.connections.map((item) => ({
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
  } else {
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
    const links = caller.kind === 'user' && caller.userId === userId ? caller.linkedAccounts : [];
    connections = answer.connections.map((item) => ({
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
    for (const link of links ?? []) {
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
    reconnect = (links ?? [])
      .filter((account) => account.needsReconnect === true)
      .map((account) => ({
        providerId: account.providerId,
        accountId: account.id,
        command: `gateway connect ${account.providerId}`,
      }));
  }
  if (options.json) {
    printJson(io, reconnect === undefined ? { connections } : { connections, reconnect });
    return connections;
  }
  const c = createColors(io);
  const reconnectLines = () => {
    for (const item of reconnect ?? []) {
      io.stdout.write(
        `${c.yellow('!')} Your ${item.providerId} account needs reconnecting: the provider refused to renew your sign-in. Run \`${item.command}\`.\n`,
      );
    }
  };
  if (connections.length === 0) {
    io.stdout.write(
      options.team
        ? 'No team connections; an admin adds one with `gateway connect <tool> --team`.\n'
        : 'No connections yet; add one with `gateway connect <tool>`.\n',
    );
    reconnectLines();
    return connections;
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
      `OAuth accounts are disconnected on the Tools tab of ${api.base}; \`gateway connections rm\` removes the others.\n`,
    );
  }
  reconnectLines();
  return connections;
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
