import { connectorList } from '../../api/schemas.js';
import { signedInApi } from '../../api/signed-in.js';
import { CliError } from '../../cli-error.js';
import { connectOAuth, connectUpstream } from './browser-connect.js';
import { type ConnectOptions, type ConnectResult, connectionFlags } from './options.js';
import { connectApiKey } from './stored-secret.js';

export type { ConnectOptions, ConnectResult } from './options.js';

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
  if (connector.kind === 'plugin_oauth') {
    // A plugin's own OAuth provider: through the upstream OAuth flow, or a pasted token as for a
    // sign-in provider that is not set up (or with a flag only a stored connection has).
    if (!connector.configured || connectionFlags(options).length > 0) {
      return connectApiKey(api, connector, options);
    }
    return connectUpstream(api, connector, options);
  }
  if (connector.kind === 'api_key') return connectApiKey(api, connector, options);
  if (!connector.configured || connectionFlags(options).length > 0) {
    return connectApiKey(api, connector, options);
  }
  return connectOAuth(api, { ...connector, kind: connector.kind }, options);
}
