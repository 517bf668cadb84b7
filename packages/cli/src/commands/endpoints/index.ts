import { deleted, endpointCreated, endpointList, endpointUpdated } from '../../api/schemas.js';
import { type SignedInOptions, signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import { printJson, printTable } from '../../output/table.js';
import { type McpClientConfigs, mcpClientConfigs, serverName } from './mcp-client-configs.js';

export { type McpClientConfigs, mcpClientConfigs } from './mcp-client-configs.js';

/** Options of `runEndpointsCreate()`. */
export interface EndpointsCreateOptions extends SignedInOptions {
  name: string;
  description?: string | undefined;
  /** Patterns narrowing the role (each may hold several, comma-separated); none: the whole role. */
  tools?: readonly string[] | undefined;
  mode?: 'tools' | 'discovery' | undefined;
  json?: boolean | undefined;
}

/** The patterns given to `--tools`, split at commas and spaces, blanks dropped. */
export function patternsOf(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(/[\s,]+/)).filter((value) => value !== '');
}

/** What an endpoint serves, as one line: its patterns, or the whole role, and its mode. */
function scopeLine(endpoint: { tools?: string[] | null | undefined; mode?: string | undefined }) {
  const tools = endpoint.tools ? endpoint.tools.join(', ') : 'every tool of your role';
  return endpoint.mode === 'discovery' ? `${tools} (discovery)` : tools;
}

/** A new endpoint: the only time its token is shown. */
export interface CreatedEndpoint {
  id: string;
  name: string;
  token: string;
  createdAt: string;
  /** The MCP URL to give a client, with the token as a bearer header. */
  mcpUrl: string;
  configs: McpClientConfigs;
}

/**
 * `gateway endpoints create <name>`: makes a personal MCP endpoint
 * (`POST /api/connections/mcp-endpoints`) and prints its token, once, with configurations for
 * Claude Desktop, Cursor and VS Code ready to paste.
 *
 * @throws CliError: not signed in (4), the name is taken (1).
 */
export async function runEndpointsCreate(
  options: EndpointsCreateOptions,
): Promise<CreatedEndpoint> {
  const { io } = options;
  const api = await signedInApi(options);
  const created = await api.call({
    method: 'POST',
    path: '/api/connections/mcp-endpoints',
    body: {
      userId: await api.userId(),
      name: options.name,
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.tools === undefined ? {} : { tools: patternsOf(options.tools) }),
      ...(options.mode === undefined ? {} : { mode: options.mode }),
    },
    schema: endpointCreated,
    conflictHint: 'see `gateway endpoints list`',
  });
  const mcpUrl = `${api.base}/mcp`;
  const configs = mcpClientConfigs(mcpUrl, created.token, serverName(created.name));
  const result: CreatedEndpoint = {
    id: created.id,
    name: created.name,
    token: created.token,
    createdAt: created.createdAt,
    mcpUrl,
    configs,
  };
  if (options.json) {
    printJson(io, result);
    return result;
  }
  const c = createColors(io);
  const block = (title: string, config: unknown) =>
    `${c.bold(title)}\n${JSON.stringify(config, null, 2)}\n\n`;
  io.stdout.write(
    `${c.green('✓')} Created MCP endpoint "${created.name}" (${created.id})\n` +
      `${c.bold('Serves')} ${scopeLine(created)}\n\n` +
      `${c.bold('Token')} ${c.yellow('(shown only this once; keep it secret)')}\n  ${created.token}\n\n` +
      `${c.bold('MCP URL')} ${mcpUrl}, with the header Authorization: Bearer <token>\n\n` +
      block('Claude Desktop (claude_desktop_config.json):', configs.claudeDesktop) +
      block('Cursor (~/.cursor/mcp.json):', configs.cursor) +
      block('VS Code (.vscode/mcp.json):', configs.vscode) +
      `${c.bold('Any client that runs a command:')}\n  ${configs.command}\n`,
  );
  return result;
}

/** Options of `runEndpointsList()`. */
export interface EndpointsListOptions extends SignedInOptions {
  json?: boolean | undefined;
}

/** `gateway endpoints list`: the signed-in user's MCP endpoints, tokens masked. */
export async function runEndpointsList(options: EndpointsListOptions) {
  const { io } = options;
  const api = await signedInApi(options);
  const { endpoints } = await api.call({
    method: 'GET',
    path: '/api/connections/mcp-endpoints',
    query: { userId: await api.userId() },
    schema: endpointList,
  });
  if (options.json) {
    printJson(io, { endpoints });
    return endpoints;
  }
  if (endpoints.length === 0) {
    io.stdout.write('No MCP endpoints yet; make one with `gateway endpoints create <name>`.\n');
    return endpoints;
  }
  printTable(
    io,
    ['ID', 'NAME', 'TOKEN', 'LAST USED', 'TOOLS', 'DESCRIPTION'],
    endpoints.map((endpoint) => [
      endpoint.id,
      endpoint.name,
      endpoint.kind === 'oauth' ? 'OAuth sign-in' : endpoint.maskedToken,
      endpoint.lastUsedAt ?? 'never',
      endpoint.tools || endpoint.mode === 'discovery' ? scopeLine(endpoint) : 'all',
      endpoint.description ?? '',
    ]),
  );
  return endpoints;
}

/** Options of `runEndpointsUpdate()`. */
export interface EndpointsUpdateOptions extends SignedInOptions {
  id: string;
  /** New patterns (each may hold several, comma-separated). */
  tools?: readonly string[] | undefined;
  /** Serve the whole role again. */
  allTools?: boolean | undefined;
  mode?: 'tools' | 'discovery' | undefined;
  json?: boolean | undefined;
}

/**
 * `gateway endpoints update <id>`: changes which tools of the user's role an MCP endpoint serves
 * (`--tools`, `--all-tools`) or its mode (`--mode`); its connected clients hear that their tool
 * list changed.
 *
 * @throws CliError: nothing to change or both `--tools` and `--all-tools` (2), not signed in (4),
 * no such endpoint or an invalid pattern (1).
 */
export async function runEndpointsUpdate(options: EndpointsUpdateOptions) {
  const { io } = options;
  if (options.tools !== undefined && options.allTools) {
    throw new CliError('Give --tools or --all-tools, not both', { exitCode: 2 });
  }
  if (options.tools === undefined && !options.allTools && options.mode === undefined) {
    throw new CliError('Nothing to change: give --tools, --all-tools or --mode', { exitCode: 2 });
  }
  const api = await signedInApi(options);
  const { endpoint } = await api.call({
    method: 'PATCH',
    path: `/api/connections/mcp-endpoints/${encodeURIComponent(options.id)}`,
    body: {
      userId: await api.userId(),
      ...(options.tools === undefined ? {} : { tools: patternsOf(options.tools) }),
      ...(options.allTools ? { tools: null } : {}),
      ...(options.mode === undefined ? {} : { mode: options.mode }),
    },
    schema: endpointUpdated,
    notFoundHint: 'see `gateway endpoints list`',
  });
  if (options.json) printJson(io, { endpoint });
  else
    io.stdout.write(
      `${createColors(io).green('✓')} Updated MCP endpoint "${endpoint.name}": serves ${scopeLine(endpoint)}\n`,
    );
  return endpoint;
}

/** Options of `runEndpointsRm()`. */
export interface EndpointsRmOptions extends SignedInOptions {
  id: string;
  json?: boolean | undefined;
}

/**
 * `gateway endpoints rm <id>`: deletes an MCP endpoint; its token stops working at once.
 *
 * @throws CliError: not signed in (4), no such endpoint (1).
 */
export async function runEndpointsRm(options: EndpointsRmOptions): Promise<string[]> {
  const { io } = options;
  const api = await signedInApi(options);
  const answer = await api.call({
    method: 'DELETE',
    path: `/api/connections/mcp-endpoints/${encodeURIComponent(options.id)}`,
    query: { userId: await api.userId() },
    schema: deleted,
    notFoundHint: 'see `gateway endpoints list`',
  });
  if (options.json) printJson(io, answer);
  else
    io.stdout.write(
      `${createColors(io).green('✓')} Removed MCP endpoint ${options.id}; its token no longer works\n`,
    );
  return answer.deleted;
}
