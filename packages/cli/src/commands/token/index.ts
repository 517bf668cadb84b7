import type { SessionOptions } from '../../credentials/session.js';
import { requireSession } from '../../credentials/session.js';

/** Options of `runToken()`. */
export interface TokenOptions extends SessionOptions {}

/**
 * `gateway token`: prints the token the CLI would send to the gateway, alone on a line, so a
 * script can use it (`curl -H "Authorization: Bearer $(gateway token)"`), as `gh auth token`
 * does. `GATEWAY_TOKEN` beats the stored sign-in, as for every command. The gateway is not
 * asked: `gateway whoami` checks a token still works.
 *
 * Prints nothing else, and writes the token only to stdout: never to stderr or a log.
 *
 * @throws CliError (exit 4) "Not signed in. Run `gateway login`." when there is no credential.
 */
export async function runToken(options: TokenOptions): Promise<void> {
  const session = await requireSession(options);
  options.io.stdout.write(`${session.token}\n`);
}
