import { isLoopback } from '../config/loopback.js';
import type { SignupPolicy } from './policy.js';

export { isLoopback };

/**
 * The warning `gateway-server` prints at start when anyone on the network could create the
 * first account and so own the gateway: it listens beyond loopback, sign-up is open and no
 * `GATEWAY_ADMIN_EMAILS` says who the admin is. Undefined when there is nothing to warn about.
 *
 * @example
 * const warning = openSignupWarning('0.0.0.0', gateway.services.signup);
 * if (warning) process.stderr.write(`${warning}\n`);
 */
export function openSignupWarning(host: string, policy: SignupPolicy): string | undefined {
  if (isLoopback(host) || policy.mode !== 'open' || policy.adminEmails !== undefined) {
    return undefined;
  }
  return `Warning: sign-up is open (GATEWAY_SIGNUP=open) and the gateway listens on ${host}, beyond this machine: anyone who reaches it can create an account, and the first account becomes the admin. Set GATEWAY_ADMIN_EMAILS=<your email> to name the admin, and GATEWAY_SIGNUP=invite unless everyone who can reach it may sign up.`;
}
