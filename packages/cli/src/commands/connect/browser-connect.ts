import type { GatewayApi } from '../../api/gateway-api.js';
import { type Connector, connectionList, me } from '../../api/schemas.js';
import { CliError } from '../../cli-error.js';
import { runBrowserFlow } from '../../loopback/browser-flow.js';
import { createState } from '../../loopback/pkce.js';
import { createColors } from '../../output/color.js';
import { printJson } from '../../output/table.js';
import { type ConnectOptions, type ConnectResult, connectionFlags } from './options.js';

/**
 * An OAuth tool through the browser (`/cli/connect/<provider>`, ending at the loopback listener
 * with `status=connected`), checked to have linked the account to the token's own user.
 */
export async function connectOAuth(
  api: GatewayApi,
  connector: Connector & { kind: 'social' | 'generic' },
  options: ConnectOptions,
): Promise<ConnectResult> {
  const { io } = options;
  // Whoever is signed in to the browser gets the link, which need not be the token's user: note
  // the token user's links now, to check afterwards that the new one landed on them.
  const before = await linkedUser(api, connector.id);
  await connectInBrowser(api, options, {
    id: connector.id,
    path: 'connect',
    name: connector.name,
    unreachable: connector.name,
    success: {
      title: `${connector.name} connected`,
      message: `Your ${connector.name} account is connected to Gateway. You can close this tab.`,
    },
  });
  const after = await linkedUser(api, connector.id);
  const landed =
    after.links === undefined ||
    // A new link, or one linked again (better-auth then updates it).
    [...after.links].some(([id, updatedAt]) => before.links?.get(id) !== updatedAt);
  if (!landed) {
    throw new CliError(
      `The browser linked ${connector.name} to another Gateway account than ${after.email}, whom this command line is signed in as; sign in to ${api.base} as ${after.email} in the browser and run \`gateway connect ${connector.id}\` again`,
    );
  }
  if (after.links === undefined) {
    io.stderr.write(
      `${createColors(io).yellow('warning:')} ${api.base} does not list linked accounts (an older version?), so which account ${connector.name} went to is unconfirmed\n`,
    );
  }
  return connected(
    options,
    { kind: connector.kind, toolId: connector.id, status: 'connected', userId: after.userId },
    `Connected ${connector.name} (${connector.id}) to your account ${after.email}`,
  );
}

/**
 * The token's user (`GET /api/me`, asked afresh) and their links of `providerId`, by link id with
 * the time each last changed; `links` is undefined from a gateway too old to list them.
 *
 * @throws CliError (exit 4) when the token is no user's: only a person links an OAuth account.
 */
async function linkedUser(
  api: GatewayApi,
  providerId: string,
): Promise<{ userId: string; email: string; links: Map<string, string> | undefined }> {
  const caller = await api.call({ method: 'GET', path: '/api/me', schema: me });
  if (caller.kind !== 'user') {
    throw new CliError(
      "Only a person connects an OAuth tool, and this token is no user's; use a CLI token from `gateway login`",
      { exitCode: 4 },
    );
  }
  const links = caller.linkedAccounts
    ?.filter((link) => link.providerId === providerId)
    .map((link) => [link.id, link.updatedAt] as const);
  return {
    userId: caller.userId,
    email: caller.email,
    links: links === undefined ? undefined : new Map(links),
  };
}

/** Prints `result` (as JSON with `--json`, else `line` after a check mark) and returns it. */
function connected(options: ConnectOptions, result: ConnectResult, line: string): ConnectResult {
  const { io } = options;
  if (options.json) printJson(io, result);
  else io.stdout.write(`${createColors(io).green('✓')} ${line}\n`);
  return result;
}

/**
 * One connect flow in the browser: opens `/cli/<path>/<id>` of the gateway and waits for its
 * answer at the loopback listener, checked by {@link acceptConnected}.
 */
async function connectInBrowser(
  api: GatewayApi,
  options: ConnectOptions,
  flow: {
    id: string;
    /** What `gateway connect` takes for it, when not `id`. */
    command?: string;
    path: 'connect' | 'connect-upstream';
    name: string;
    unreachable: string;
    success: { title: string; message: string };
  },
): Promise<void> {
  const { id, name } = flow;
  const state = createState();
  await runBrowserFlow({
    io: options.io,
    browser: options.browser,
    openBrowser: options.openBrowser,
    timeoutMs: options.timeoutMs,
    purpose: `connect ${name} to your Gateway account`,
    pageUrl: (redirectUri) =>
      `${api.base}/cli/${flow.path}/${encodeURIComponent(id)}?${new URLSearchParams({ redirect_uri: redirectUri, state })}`,
    accept: (query) =>
      acceptConnected(query, {
        state,
        id,
        command: flow.command ?? id,
        name,
        unreachable: flow.unreachable,
      }),
    success: flow.success,
    timeoutMessage: (duration) =>
      `Timed out after ${duration} waiting for the browser; run \`gateway connect ${flow.command ?? id}\` again`,
  });
}

/**
 * Checks the browser's answer to a connect flow (the query the CLI's loopback listener got): its
 * `state`, an `error` the gateway page passed on, and `status=connected` for connector `id`.
 *
 * @throws CliError saying what happened and to run `gateway connect <id>` again.
 */
function acceptConnected(
  query: URLSearchParams,
  expected: { state: string; id: string; command: string; name: string; unreachable: string },
): true {
  const { id, name, command } = expected;
  const again = `run \`gateway connect ${command}\` again`;
  if (query.get('state') !== expected.state) {
    throw new CliError(`The browser answered a different request (state mismatch); ${again}`);
  }
  const error = query.get('error');
  if (error !== null) {
    throw new CliError(
      error === 'access_denied'
        ? `Connecting ${name} was cancelled in the browser`
        : error === 'provider_unavailable'
          ? `${expected.unreachable} cannot be reached right now; try \`gateway connect ${command}\` again in a minute`
          : `Connecting ${name} failed (${error}); ${again}`,
    );
  }
  if (query.get('status') !== 'connected' || query.get('provider') !== id) {
    throw new CliError(`The browser came back without confirming ${name}; ${again}`);
  }
  return true;
}

/**
 * An upstream MCP source whose users connect with OAuth: the browser signs in at the upstream's
 * authorization server (`/cli/connect-upstream/<source>`), the gateway keeps the tokens as the
 * user's connection `mcp.<source>`, and only `status=connected` reaches the loopback.
 */
export async function connectUpstream(
  api: GatewayApi,
  connector: Connector,
  options: ConnectOptions,
): Promise<ConnectResult> {
  const flags = connectionFlags(options);
  if (flags.length > 0) {
    throw new CliError(
      `${flags.join(', ')} do not apply to an upstream MCP source; run \`gateway connect ${connector.id}\` alone`,
      { exitCode: 2 },
    );
  }
  const caller = await api.call({ method: 'GET', path: '/api/me', schema: me });
  if (caller.kind !== 'user') {
    throw new CliError(
      "Only a person connects an upstream MCP source, and this token is no user's; use a CLI token from `gateway login`",
      { exitCode: 4 },
    );
  }
  // A plugin's own OAuth provider goes through the same flow under its key `@<id>`, and its
  // tokens are the connection of tool id `<id>`.
  const own = connector.kind === 'plugin_oauth';
  const toolId = own ? connector.id : `mcp.${connector.id}`;
  const before = await upstreamConnection(api, caller.userId, toolId);
  const name = own
    ? `${connector.name} (${connector.id})`
    : `the upstream MCP server ${connector.id}`;
  await connectInBrowser(api, options, {
    id: own ? `@${connector.id}` : connector.id,
    command: connector.id,
    path: 'connect-upstream',
    name,
    unreachable: `${name} or its authorization server`,
    success: {
      title: `${connector.id} connected`,
      message: `Your account at ${name} is connected to Gateway. You can close this tab.`,
    },
  });
  const after = await upstreamConnection(api, caller.userId, toolId);
  if (after === undefined || after === before) {
    throw new CliError(
      `The browser connected ${name} for another Gateway account than ${caller.email}, whom this command line is signed in as; sign in to ${api.base} as ${caller.email} in the browser and run \`gateway connect ${connector.id}\` again`,
    );
  }
  return connected(
    options,
    {
      kind: own ? 'plugin_oauth' : 'mcp_oauth',
      toolId: connector.id,
      status: 'connected',
      userId: caller.userId,
    },
    `Connected ${name} to your account ${caller.email}`,
  );
}

/** When the user's connection of tool id `toolId` (`mcp.<source>`, a provider id) last changed. */
async function upstreamConnection(
  api: GatewayApi,
  userId: string,
  toolId: string,
): Promise<string | undefined> {
  const { connections } = await api.call({
    method: 'GET',
    path: `/api/connections?${new URLSearchParams({ userId })}`,
    schema: connectionList,
  });
  return connections.find((row) => row.tool_id === toolId && row.parent_id === null)?.updated_at;
}
