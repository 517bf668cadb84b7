import type { GatewayApi } from '../../api/gateway-api.js';
import {
  type Connector,
  connectionCreated,
  connectionList,
  connectorList,
  me,
} from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import type { BrowserOpener } from '../../loopback/browser.js';
import { runBrowserFlow } from '../../loopback/browser-flow.js';
import { createState } from '../../loopback/pkce.js';
import { createColors } from '../../output/color.js';
import { printJson } from '../../output/table.js';
import { createSecretPrompt, readSecretFrom, type SecretPrompt } from '../../prompts/secret.js';

/** Options of `runConnect()`. */
export interface ConnectOptions extends SignedInOptions {
  /** The connector id, as `GET /api/connectors/availability` lists it (e.g. `github`, `weather`). */
  tool: string;
  /** A stored key or token: the connection's name. Default `default`. */
  instanceName?: string | undefined;
  /** A stored key or token: a connection of the same tool to nest this one under. */
  parent?: string | undefined;
  /** A stored key or token: a workspace or project id. */
  workspace?: string | undefined;
  /** A stored key or token: what the connection is for, stored with it. */
  description?: string | undefined;
  /** A stored key or token: connect for the whole team (admins). */
  team?: boolean | undefined;
  /** Read the key (or an OAuth tool's token) from stdin instead of asking. */
  secretStdin?: boolean | undefined;
  /** Where `--secret-stdin` reads. Default `process.stdin`. */
  stdin?: NodeJS.ReadableStream | undefined;
  /** Asks for the key without echo. Default: a @clack/prompts password prompt at a terminal. */
  askSecret?: SecretPrompt | undefined;
  /** OAuth tools: false prints the URL without opening a browser. */
  browser?: boolean | undefined;
  openBrowser?: BrowserOpener | undefined;
  /** OAuth tools: how long to wait for the browser. Default 5 minutes. */
  timeoutMs?: number | undefined;
  json?: boolean | undefined;
}

/** What `gateway connect` made. The secret itself is never part of it. */
export type ConnectResult =
  | {
      kind: 'api_key';
      id: string;
      toolId: string;
      instanceName: string;
      maskedSecret: string;
      team: boolean;
    }
  | {
      /** An OAuth tool connected with a token the user pasted, stored as a connection. */
      kind: 'token';
      id: string;
      toolId: string;
      instanceName: string;
      maskedSecret: string;
      team: boolean;
    }
  | {
      /** `mcp_oauth`: an upstream MCP source, connected at its own authorization server. */
      kind: 'social' | 'generic' | 'mcp_oauth';
      toolId: string;
      status: 'connected';
      /** The user the account is now linked to: the token's own, as the gateway confirmed. */
      userId: string;
    };

/** The longest secret the gateway stores. */
const MAX_SECRET_LENGTH = 10_000;

/**
 * `gateway connect <tool>`: connects a tool to the signed-in user. An OAuth tool goes through
 * the browser (`/cli/connect/<provider>`, ending at the loopback listener with
 * `status=connected`); an API-key tool asks for the key without echo (or reads it from stdin
 * with `--secret-stdin`) and stores it with `POST /api/connections`, or for the team with
 * `POST /api/team/connections`. Only the masked key is printed.
 *
 * An OAuth tool takes a token the same way, as the web app's "Use a token instead" does: when
 * its sign-in is not configured on the gateway, or when a flag only a stored connection has is
 * given (`--secret-stdin`, `--team`, `--instance-name`, ...).
 *
 * @throws CliError: not signed in (4), an unknown tool (1), flags that do not fit together or no
 * way to read the key (2), the gateway's refusals.
 */
export async function runConnect(options: ConnectOptions): Promise<ConnectResult> {
  const api = await signedInApi(options);
  const { connectors } = await api.call({
    method: 'GET',
    path: '/api/connectors/availability',
    schema: connectorList,
  });
  const wanted = options.tool.trim().toLowerCase();
  // `mcp.<source>` names an upstream source even when a provider shares its id.
  const connector = wanted.startsWith('mcp.')
    ? connectors.find(
        (candidate) => candidate.kind === 'mcp_oauth' && candidate.id === wanted.slice(4),
      )
    : connectors.find((candidate) => candidate.id === wanted);
  if (connector === undefined) {
    const known = connectors
      .filter((candidate) => candidate.kind === 'api_key' || candidate.configured)
      .map((candidate) => candidate.id);
    throw new CliError(
      `No tool "${options.tool}" to connect at ${api.base}; ${known.length === 0 ? 'this gateway has none configured' : `connectable here: ${known.join(', ')}`}`,
    );
  }
  if (connector.kind === 'mcp_oauth') return connectUpstream(api, connector, options);
  if (connector.kind === 'api_key') return connectApiKey(api, connector, options);
  if (!connector.configured || connectionFlags(options).length > 0) {
    return connectApiKey(api, connector, options);
  }
  return connectOAuth(api, { ...connector, kind: connector.kind }, options);
}

/**
 * An upstream MCP source whose users connect with OAuth: the browser signs in at the upstream's
 * authorization server (`/cli/connect-upstream/<source>`), the gateway keeps the tokens as the
 * user's connection `mcp.<source>`, and only `status=connected` reaches the loopback.
 */
async function connectUpstream(
  api: GatewayApi,
  connector: Connector,
  options: ConnectOptions,
): Promise<ConnectResult> {
  const { io } = options;
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
  const before = await upstreamConnection(api, caller.userId, connector.id);
  const state = createState();
  const name = `the upstream MCP server ${connector.id}`;
  await runBrowserFlow({
    io,
    browser: options.browser,
    openBrowser: options.openBrowser,
    timeoutMs: options.timeoutMs,
    purpose: `connect ${name} to your Gateway account`,
    pageUrl: (redirectUri) =>
      `${api.base}/cli/connect-upstream/${encodeURIComponent(connector.id)}?${new URLSearchParams({ redirect_uri: redirectUri, state })}`,
    accept: (query) =>
      acceptConnected(query, {
        state,
        id: connector.id,
        name,
        unreachable: `${name} or its authorization server`,
      }),
    success: {
      title: `${connector.id} connected`,
      message: `Your account at ${name} is connected to Gateway. You can close this tab.`,
    },
    timeoutMessage: (duration) =>
      `Timed out after ${duration} waiting for the browser; run \`gateway connect ${connector.id}\` again`,
  });
  const after = await upstreamConnection(api, caller.userId, connector.id);
  if (after === undefined || after === before) {
    throw new CliError(
      `The browser connected ${name} for another Gateway account than ${caller.email}, whom this command line is signed in as; sign in to ${api.base} as ${caller.email} in the browser and run \`gateway connect ${connector.id}\` again`,
    );
  }
  const result: ConnectResult = {
    kind: 'mcp_oauth',
    toolId: connector.id,
    status: 'connected',
    userId: caller.userId,
  };
  if (options.json) {
    printJson(io, result);
    return result;
  }
  io.stdout.write(
    `${createColors(io).green('✓')} Connected ${name} to your account ${caller.email}\n`,
  );
  return result;
}

/** When the user's connection to upstream source `sourceId` last changed, or undefined. */
async function upstreamConnection(
  api: GatewayApi,
  userId: string,
  sourceId: string,
): Promise<string | undefined> {
  const { connections } = await api.call({
    method: 'GET',
    path: `/api/connections?${new URLSearchParams({ userId })}`,
    schema: connectionList,
  });
  return connections.find((row) => row.tool_id === `mcp.${sourceId}` && row.parent_id === null)
    ?.updated_at;
}

/** The flags that only a stored connection (an API key, or an OAuth tool's token) has. */
function connectionFlags(options: ConnectOptions): string[] {
  return [
    ['--team', options.team],
    ['--instance-name', options.instanceName],
    ['--parent', options.parent],
    ['--workspace', options.workspace],
    ['--description', options.description],
    ['--secret-stdin', options.secretStdin],
  ]
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([flag]) => String(flag));
}

/** What the user pastes for `connector`: an API key, or an OAuth tool's token. */
function secretName(connector: Connector): string {
  return connector.kind === 'api_key' ? 'API key' : 'token';
}

/** How an admin turns on an OAuth tool's sign-in. */
function oauthSetting(connector: Connector): string {
  const prefix = connector.id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return `an admin sets ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET on the server`;
}

async function connectApiKey(
  api: GatewayApi,
  connector: Connector,
  options: ConnectOptions,
): Promise<ConnectResult> {
  const { io } = options;
  if (options.team && options.parent !== undefined) {
    throw new CliError('--parent does not apply to team connections; drop it or --team', {
      exitCode: 2,
    });
  }
  // Before asking for the key, so a token that is no user's fails without a prompt first.
  const userId = options.team ? undefined : await api.userId();
  const secret = await readSecret(api, connector, options);
  const instanceName = options.instanceName ?? 'default';
  const created = await api.call({
    method: 'POST',
    path: options.team ? '/api/team/connections' : '/api/connections',
    body: {
      ...(userId === undefined ? {} : { userId }),
      toolId: connector.id,
      instanceName,
      secret,
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.workspace === undefined ? {} : { workspaceId: options.workspace }),
      ...(options.parent === undefined ? {} : { parentId: options.parent }),
    },
    schema: connectionCreated,
    notFoundHint:
      options.parent === undefined
        ? undefined
        : 'see `gateway connections list` for the --parent id',
    conflictHint: 'pass another --instance-name, or remove that connection first',
  });
  const result: ConnectResult = {
    kind: connector.kind === 'api_key' ? 'api_key' : 'token',
    id: created.id,
    toolId: created.toolId,
    instanceName: created.instanceName,
    maskedSecret: created.maskedSecret,
    team: options.team ?? false,
  };
  if (options.json) {
    printJson(io, result);
    return result;
  }
  const c = createColors(io);
  io.stdout.write(
    `${c.green('✓')} Connected ${connector.name} (${connector.id}) as "${created.instanceName}"${options.team ? ' for the team' : ''}: ${created.maskedSecret}\n`,
  );
  io.stdout.write(`  connection id: ${created.id}\n`);
  return result;
}

async function readSecret(
  api: GatewayApi,
  connector: Connector,
  options: ConnectOptions,
): Promise<string> {
  if (options.secretStdin) return readSecretFrom(options.stdin ?? process.stdin, MAX_SECRET_LENGTH);
  const what = secretName(connector);
  const unconfigured = connector.kind !== 'api_key' && !connector.configured;
  const ask = options.askSecret ?? (await createSecretPrompt(options.io));
  if (ask === undefined) {
    const pipe = `pipe it in with --secret-stdin, e.g. \`printenv ${connector.kind === 'api_key' ? 'KEY' : 'TOKEN'} | gateway connect ${connector.id} --secret-stdin\``;
    throw new CliError(
      unconfigured
        ? `${connector.name} sign-in is not set up on ${api.base} (${oauthSetting(connector)}); connect it with a token instead: ${pipe}`
        : `No terminal to ask for the ${connector.name} ${what === 'API key' ? 'key' : what}; ${pipe}`,
      { exitCode: 2 },
    );
  }
  if (unconfigured) {
    options.io.stderr.write(
      `${connector.name} sign-in is not set up on ${api.base} (${oauthSetting(connector)}); paste a ${connector.name} token instead.\n`,
    );
  }
  const secret = (await ask(`${connector.name} ${what}`)).trim();
  if (secret === '')
    throw new CliError(`No ${what === 'API key' ? 'key' : what} given`, { exitCode: 2 });
  if (secret.length > MAX_SECRET_LENGTH) {
    throw new CliError(`The key is longer than ${MAX_SECRET_LENGTH} characters`, { exitCode: 2 });
  }
  return secret;
}

async function connectOAuth(
  api: GatewayApi,
  connector: Connector & { kind: 'social' | 'generic' },
  options: ConnectOptions,
): Promise<ConnectResult> {
  const { io } = options;
  // Whoever is signed in to the browser gets the link, which need not be the token's user: note
  // the token user's links now, to check afterwards that the new one landed on them.
  const before = await linkedUser(api, connector.id);
  const state = createState();
  await runBrowserFlow({
    io,
    browser: options.browser,
    openBrowser: options.openBrowser,
    timeoutMs: options.timeoutMs,
    purpose: `connect ${connector.name} to your Gateway account`,
    pageUrl: (redirectUri) =>
      `${api.base}/cli/connect/${encodeURIComponent(connector.id)}?${new URLSearchParams({ redirect_uri: redirectUri, state })}`,
    accept: (query) =>
      acceptConnected(query, {
        state,
        id: connector.id,
        name: connector.name,
        unreachable: connector.name,
      }),
    success: {
      title: `${connector.name} connected`,
      message: `Your ${connector.name} account is connected to Gateway. You can close this tab.`,
    },
    timeoutMessage: (duration) =>
      `Timed out after ${duration} waiting for the browser; run \`gateway connect ${connector.id}\` again`,
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
  const result: ConnectResult = {
    kind: connector.kind,
    toolId: connector.id,
    status: 'connected',
    userId: after.userId,
  };
  if (options.json) {
    printJson(io, result);
    return result;
  }
  io.stdout.write(
    `${createColors(io).green('✓')} Connected ${connector.name} (${connector.id}) to your account ${after.email}\n`,
  );
  return result;
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

/**
 * Checks the browser's answer to a connect flow (the query the CLI's loopback listener got): its
 * `state`, an `error` the gateway page passed on, and `status=connected` for connector `id`.
 *
 * @throws CliError saying what happened and to run `gateway connect <id>` again.
 */
function acceptConnected(
  query: URLSearchParams,
  expected: { state: string; id: string; name: string; unreachable: string },
): true {
  const { id, name } = expected;
  const again = `run \`gateway connect ${id}\` again`;
  if (query.get('state') !== expected.state) {
    throw new CliError(`The browser answered a different request (state mismatch); ${again}`);
  }
  const error = query.get('error');
  if (error !== null) {
    throw new CliError(
      error === 'access_denied'
        ? `Connecting ${name} was cancelled in the browser`
        : error === 'provider_unavailable'
          ? `${expected.unreachable} cannot be reached right now; try \`gateway connect ${id}\` again in a minute`
          : `Connecting ${name} failed (${error}); ${again}`,
    );
  }
  if (query.get('status') !== 'connected' || query.get('provider') !== id) {
    throw new CliError(`The browser came back without confirming ${name}; ${again}`);
  }
  return true;
}
