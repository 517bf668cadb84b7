import { detailsText, errorOf } from '../../api/api-error.js';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import type { Io } from '../../output/io.js';
import { plural } from '../../output/plural.js';
import { withSpinner } from '../../output/spinner.js';
import { findPluginEntry } from '../test/find-entry.js';
import { loadPlugin } from '../test/load-plugin.js';
import { nameFromUrl } from './name-from-url.js';

export { nameFromUrl };

/** Options of `runRegister()`. */
export interface RegisterOptions {
  /** The plugin project. */
  cwd: string;
  io: Io;
  /** The gateway's base URL. Env `GATEWAY_URL`, default http://127.0.0.1:8787. */
  url?: string | undefined;
  /** The source id to register under. Default: the plugin id. */
  id?: string | undefined;
  /**
   * The tool-path namespace: for `mcp`. A plugin registers under its id only (its tool paths
   * start with it); any other value is refused before anything is sent.
   */
  namespace?: string | undefined;
  /**
   * Register an upstream MCP server (its Streamable HTTP URL) instead of this project's plugin:
   * no plugin is loaded, and `id` and `namespace` default to a name taken from the URL's host.
   */
  mcp?: string | undefined;
  /**
   * For `mcp`: the provider whose credential the gateway sends to the upstream for each calling
   * user (their own connection, else the team's, else `<PROVIDER>_API_KEY`), in `header`.
   */
  provider?: string | undefined;
  /** For `mcp` with `provider`: the header that carries the credential. Default `Authorization`. */
  header?: string | undefined;
  /** For `mcp` with `provider`: put before the credential. Default `Bearer` for `Authorization`. */
  scheme?: string | undefined;
  /**
   * For `mcp`: each user connects their own account at the upstream's authorization server
   * (`auth: { kind: "oauth" }`); its tools are listed once the first user has connected.
   */
  oauth?: boolean | undefined;
  /** With `oauth`: a public client registered beforehand there (else the gateway registers one). */
  clientId?: string | undefined;
  /** Print the registration as JSON. */
  json?: boolean;
  /** The HTTP client. Default the global fetch. */
  fetch?: typeof fetch;
}

/** What the gateway answered: the stored source and the tools now live. */
export interface Registration {
  source: {
    id: string;
    type: string;
    namespace: string;
    pluginId: string | null;
    createdAt: string;
  };
  tools: string[];
}

const DEFAULT_URL = 'http://127.0.0.1:8787';

/**
 * `gateway register`: registers this plugin with a gateway (`POST /api/registry/sources`), which
 * must have the plugin loaded (its config names it). The service secret is read from
 * `SERVICE_API_SECRET` only, never from a flag, so it stays out of shell history.
 *
 * @throws CliError (exit 4) without SERVICE_API_SECRET or when the gateway rejects it; (exit 1)
 * for each refusal of the gateway, in one line saying what to do.
 */
export async function runRegister(options: RegisterOptions): Promise<Registration> {
  const { io } = options;
  const secret = io.env.SERVICE_API_SECRET?.trim();
  if (!secret) {
    throw new CliError(
      "SERVICE_API_SECRET is not set; export the gateway's service secret in the environment (it is never taken as a flag)",
      { exitCode: 4 },
    );
  }
  if (options.mcp !== undefined) return registerUpstream(options, secret);
  const entry = await findPluginEntry(options.cwd);
  const loaded = await withSpinner(io, `Loading ${entry}`, () => loadPlugin(options.cwd, entry));
  if (loaded.plugin === undefined) {
    throw new CliError(`${entry} is not a valid plugin; run \`gateway test\` to see every problem`);
  }
  const pluginId = loaded.plugin.id;
  // Tool paths are absolute and start with the plugin id (what `gateway test` checks), so the
  // gateway, which requires every path to start with `<namespace>.`, refuses any other namespace.
  if (options.namespace !== undefined && options.namespace !== pluginId) {
    throw new CliError(
      `--namespace ${options.namespace} cannot be used for plugin ${pluginId}: its tool paths start with its id ("${pluginId}."), so it registers under the namespace ${pluginId} only; leave --namespace out (it is for --mcp)`,
      { exitCode: 2 },
    );
  }
  const body = {
    type: 'plugin',
    id: options.id ?? pluginId,
    namespace: pluginId,
    pluginId,
  };
  const { base, response, answer } = await postSource(options, secret, pluginId, body);
  if (response.status !== 201) {
    const tools = loaded.plugin.tools.map((tool) => tool.path);
    throw refusal(response.status, answer, body, base, tools);
  }

  return printRegistration(options, pluginId, base, answer as Registration);
}

/** Prints what a registration made live (as JSON with --json) and gives it back. */
function printRegistration(
  options: RegisterOptions,
  what: string,
  base: string,
  registration: Registration,
): Registration {
  const { io } = options;
  if (options.json) {
    io.stdout.write(`${JSON.stringify(registration, null, 2)}\n`);
    return registration;
  }
  const colors = createColors(io);
  io.stdout.write(
    `${colors.green('✓')} Registered ${what} as source ${registration.source.id} at ${base}; ${plural(registration.tools.length, 'tool')} now live:\n`,
  );
  for (const tool of registration.tools) io.stdout.write(`  ${tool}\n`);
  return registration;
}

/** POSTs a registration to the gateway, saying what is registered while it waits. */
async function postSource(
  options: RegisterOptions,
  secret: string,
  what: string,
  body: object,
): Promise<{ base: string; response: Response; answer: unknown }> {
  const { io } = options;
  const base = (options.url ?? io.env.GATEWAY_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  const request = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await withSpinner(io, `Registering ${what} at ${base}`, () =>
      request(`${base}/api/registry/sources`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  } catch {
    throw new CliError(
      `Could not reach the gateway at ${base}; is it running? Pass --url or set GATEWAY_URL`,
    );
  }
  const answer = (await response.json().catch(() => undefined)) as unknown;
  return { base, response, answer };
}

/** `gateway register --mcp <url>`: an upstream MCP server as a source. */
async function registerUpstream(options: RegisterOptions, secret: string): Promise<Registration> {
  const url = options.mcp ?? '';
  const name = nameFromUrl(url);
  if (name === undefined && (options.namespace === undefined || options.id === undefined)) {
    throw new CliError(`${url} is not an http(s) URL; pass the upstream's MCP endpoint to --mcp`, {
      exitCode: 2,
    });
  }
  const namespace = options.namespace ?? name ?? '';
  const header = options.header ?? 'Authorization';
  const scheme =
    options.scheme ?? (header.toLowerCase() === 'authorization' ? 'Bearer' : undefined);
  if (options.oauth && options.provider !== undefined) {
    throw new CliError('--oauth and --provider are two ways to authenticate; pass one', {
      exitCode: 2,
    });
  }
  if (options.clientId !== undefined && !options.oauth) {
    throw new CliError('--client-id goes with --oauth', { exitCode: 2 });
  }
  const body = {
    type: 'mcp',
    id: options.id ?? namespace.replace(/_/g, '-'),
    namespace,
    url,
    auth: options.oauth
      ? { kind: 'oauth', ...(options.clientId === undefined ? {} : { clientId: options.clientId }) }
      : options.provider === undefined
        ? { kind: 'none' }
        : {
            kind: 'header',
            provider: options.provider,
            header,
            ...(scheme === undefined ? {} : { scheme }),
          },
  };
  const { base, response, answer } = await postSource(options, secret, url, body);
  if (response.status === 503) {
    const message = (errorOf(answer)?.message ?? 'HTTP 503').replace(/\.$/, '');
    throw new CliError(`${message}; check the URL and that the upstream is running`);
  }
  if (response.status !== 201) {
    throw refusal(response.status, answer, { ...body, pluginId: '' }, base, []);
  }
  const registration = printRegistration(options, url, base, answer as Registration);
  if (options.oauth && !options.json) {
    options.io.stdout.write(
      `  Each user connects their own account: \`gateway connect ${registration.source.id}\` or the Tools tab. Its tools are listed once the first user has connected.\n`,
    );
  }
  return registration;
}

function refusal(
  status: number,
  answer: unknown,
  body: { id: string; namespace: string; pluginId: string },
  base: string,
  tools: readonly string[],
): CliError {
  const error = errorOf(answer);
  const message = (error?.message ?? `HTTP ${status}`).replace(/\.$/, '');
  switch (status) {
    case 400:
      // Validation issues come as `{ path, message }`: "Invalid body (namespace: ...)".
      return new CliError(
        `The gateway refused the registration: ${message}${detailsText(error?.details, message)}${flagHint(error?.details, tools)}`,
      );
    case 401:
      return new CliError(
        `The gateway at ${base} rejected SERVICE_API_SECRET; set it to the server's service secret`,
        { exitCode: 4 },
      );
    case 403:
      return new CliError(
        `The gateway at ${base} does not let this caller register plugins: ${message}`,
        {
          exitCode: 4,
        },
      );
    case 404:
      if (body.pluginId === '')
        return new CliError(`The gateway at ${base} answered 404: ${message}`);
      return new CliError(
        `The gateway at ${base} has no plugin "${body.pluginId}" loaded; add it to the server's gateway.config and restart the server`,
      );
    case 409:
      // A plugin has one namespace, its id: another --id would find it taken too.
      if (body.pluginId !== '')
        return new CliError(`${message}; remove the existing source first to register it again`);
      return new CliError(
        `${message}; pass another --id or --namespace, or remove the existing source first`,
      );
    default:
      return new CliError(`The gateway at ${base} answered ${status}: ${message}`);
  }
}

/**
 * Which flag a 400 is about: a validation issue of `id` or `namespace`, or tool paths of this
 * plugin named as outside the namespace.
 */
function flagHint(details: unknown, tools: readonly string[]): string {
  if (!Array.isArray(details)) return '';
  const flags = new Set<string>();
  for (const detail of details) {
    if (typeof detail === 'string' && tools.includes(detail)) flags.add('--namespace');
    const path = (detail as { path?: unknown } | null)?.path;
    if (path === 'id' || path === 'namespace') flags.add(`--${path}`);
  }
  return flags.size === 0 ? '' : `; pass another ${[...flags].join(' and ')}`;
}
