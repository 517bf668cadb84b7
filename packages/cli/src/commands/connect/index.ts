import type { GatewayApi } from '../../api/gateway-api.js';
import { type Connector, connectionCreated, connectorList, me } from '../../api/schemas.js';
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
  /** API-key tools: the connection's name. Default `default`. */
  instanceName?: string | undefined;
  /** API-key tools: a connection of the same tool to nest this one under. */
  parent?: string | undefined;
  /** API-key tools: a workspace or project id. */
  workspace?: string | undefined;
  /** API-key tools: what the connection is for, stored with it. */
  description?: string | undefined;
  /** API-key tools: connect for the whole team (admins). */
  team?: boolean | undefined;
  /** API-key tools: read the key from stdin instead of asking. */
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
      kind: 'social' | 'generic';
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
 * @throws CliError: not signed in (4), an unknown tool or an unconfigured provider (1), flags
 * that do not fit the tool or no way to read the key (2), the gateway's refusals.
 */
export async function runConnect(options: ConnectOptions): Promise<ConnectResult> {
  const api = await signedInApi(options);
  const { connectors } = await api.call({
    method: 'GET',
    path: '/api/connectors/availability',
    schema: connectorList,
  });
  const wanted = options.tool.trim().toLowerCase();
  const connector = connectors.find((candidate) => candidate.id === wanted);
  if (connector === undefined) {
    const known = connectors
      .filter((candidate) => candidate.kind === 'api_key' || candidate.configured)
      .map((candidate) => candidate.id);
    throw new CliError(
      `No tool "${options.tool}" to connect at ${api.base}; ${known.length === 0 ? 'this gateway has none configured' : `connectable here: ${known.join(', ')}`}`,
    );
  }
  if (connector.kind === 'api_key') return connectApiKey(api, connector, options);
  return connectOAuth(api, { ...connector, kind: connector.kind }, options);
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
  const secret = await readSecret(connector, options);
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
    kind: 'api_key',
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

async function readSecret(connector: Connector, options: ConnectOptions): Promise<string> {
  if (options.secretStdin) return readSecretFrom(options.stdin ?? process.stdin, MAX_SECRET_LENGTH);
  const ask = options.askSecret ?? (await createSecretPrompt(options.io));
  if (ask === undefined) {
    throw new CliError(
      `No terminal to ask for the ${connector.name} key; pipe it in with --secret-stdin, e.g. \`printenv KEY | gateway connect ${connector.id} --secret-stdin\``,
      { exitCode: 2 },
    );
  }
  const secret = (await ask(`${connector.name} API key`)).trim();
  if (secret === '') throw new CliError('No key given', { exitCode: 2 });
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
  const apiKeyOnly = [
    ['--team', options.team],
    ['--instance-name', options.instanceName],
    ['--parent', options.parent],
    ['--workspace', options.workspace],
    ['--description', options.description],
    ['--secret-stdin', options.secretStdin],
  ].filter(([, value]) => value !== undefined && value !== false);
  if (apiKeyOnly.length > 0) {
    throw new CliError(
      `${apiKeyOnly.map(([flag]) => flag).join(', ')} ${apiKeyOnly.length === 1 ? 'applies' : 'apply'} only to API-key tools; ${connector.name} connects through its sign-in page in the browser`,
      { exitCode: 2 },
    );
  }
  if (!connector.configured) {
    const prefix = connector.id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
    throw new CliError(
      `${connector.name} is not configured on ${api.base}; an admin sets ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET on the server`,
    );
  }
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
    accept(query) {
      if (query.get('state') !== state) {
        throw new CliError(
          `The browser answered a different request (state mismatch); run \`gateway connect ${connector.id}\` again`,
        );
      }
      const error = query.get('error');
      if (error !== null) {
        throw new CliError(
          error === 'access_denied'
            ? `Connecting ${connector.name} was cancelled in the browser`
            : error === 'provider_unavailable'
              ? `${connector.name} cannot be reached right now; try \`gateway connect ${connector.id}\` again in a minute`
              : `Connecting ${connector.name} failed (${error}); run \`gateway connect ${connector.id}\` again`,
        );
      }
      if (query.get('status') !== 'connected' || query.get('provider') !== connector.id) {
        throw new CliError(
          `The browser came back without confirming ${connector.name}; run \`gateway connect ${connector.id}\` again`,
        );
      }
      return true;
    },
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
