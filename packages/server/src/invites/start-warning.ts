import { isIP } from 'node:net';
import type { SignupPolicy } from './policy.js';

/** Whether `host` is reachable only from this machine. */
export function isLoopback(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1' || name.startsWith('::ffff:127.');
}

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
