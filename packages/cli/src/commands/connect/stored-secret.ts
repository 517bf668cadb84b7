import type { GatewayApi } from '../../api/gateway-api.js';
import { type Connector, connectionCreated } from '../../api/schemas.js';
import { CliError } from '../../cli-error.js';
import { createColors } from '../../output/color.js';
import { printJson } from '../../output/table.js';
import { createSecretPrompt, readSecretFrom } from '../../prompts/secret.js';
import type { ConnectOptions, ConnectResult } from './options.js';

/** The longest secret the gateway stores. */
const MAX_SECRET_LENGTH = 10_000;

/**
 * Stores a key (or an OAuth tool's token the user pastes) as a connection of the user, or of the
 * team with `--team`: asked without echo, or read from stdin with `--secret-stdin`.
 */
export async function connectApiKey(
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

/** What the user pastes for `connector`: an API key, or an OAuth tool's token. */
function secretName(connector: Connector): string {
  return connector.kind === 'api_key' ? 'API key' : 'token';
}

/** How an admin turns on an OAuth tool's sign-in. */
function oauthSetting(connector: Connector): string {
  const prefix = connector.id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return `an admin sets ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET on the server`;
}
