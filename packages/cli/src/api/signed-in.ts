import type { Keychain } from '../credentials/keychain.js';
import { requireSession } from '../credentials/session.js';
import type { Io } from '../output/io.js';
import { type Fetch, GatewayApi } from './gateway-api.js';

/** What every command acting as the signed-in user takes. */
export interface SignedInOptions {
  io: Io;
  /** `--url`: the gateway. Default: `GATEWAY_URL`, else the last one signed in to. */
  url?: string | undefined;
  /** Default: the global fetch. */
  fetch?: Fetch | undefined;
  /** The OS keychain; `null` where none answers. Default: the real one. */
  keychain?: Keychain | null | undefined;
}

/**
 * The gateway, as the signed-in user (the stored credential, or `GATEWAY_TOKEN`).
 *
 * @throws CliError (exit 4) "Not signed in. Run `gateway login`." without a credential.
 */
export async function signedInApi(options: SignedInOptions): Promise<GatewayApi> {
  const session = await requireSession(options);
  return new GatewayApi(session, { fetch: options.fetch, io: options.io });
}
