import * as envVars from '../config/env.js';

/**
 * The shortest `AUTH_SECRET` accepted. Its SHA-256 is the key of every stored secret (the spec's
 * format fixes that derivation), so a short one falls to a brute force over the stored
 * ciphertext; 32 characters of `openssl rand -base64 32` carry 192 bits and more.
 */
export const MIN_AUTH_SECRET_LENGTH = 32;

/** The auth secret in use and those used before it, which only decrypt. */
export interface AuthSecrets {
  /** `AUTH_SECRET`: signs sessions and encrypts everything stored from now on. */
  current: string;
  /** `GATEWAY_PREVIOUS_AUTH_SECRETS`, newest first, without the current one. */
  previous: readonly string[];
}

/**
 * The auth secrets of a gateway: explicit options beat the environment. Previous secrets may be
 * of any length, as a weak secret is exactly what one rotates away from.
 *
 * @throws Error, in one line naming both ways to set it, when `AUTH_SECRET` is unset or shorter
 * than {@link MIN_AUTH_SECRET_LENGTH} characters; the message never repeats the value.
 * @example
 * const { current, previous } = resolveAuthSecrets({}, process.env);
 */
export function resolveAuthSecrets(
  options: { authSecret?: string | undefined; previousAuthSecrets?: readonly string[] | undefined },
  env: envVars.Env,
): AuthSecrets {
  const current = options.authSecret ?? envVars.authSecret(env);
  if (current === undefined) {
    throw new Error(
      'AUTH_SECRET is not set: set the AUTH_SECRET environment variable (e.g. `export AUTH_SECRET="$(openssl rand -base64 32)"`, and keep it: it encrypts stored secrets) or pass authSecret to createGateway()',
    );
  }
  if (current.length < MIN_AUTH_SECRET_LENGTH) {
    throw new Error(
      `AUTH_SECRET is shorter than ${MIN_AUTH_SECRET_LENGTH} characters: make one with \`openssl rand -base64 32\` and keep it (set the AUTH_SECRET environment variable or the authSecret option of createGateway()); to replace a secret already in use, put the old one in GATEWAY_PREVIOUS_AUTH_SECRETS and run \`gateway-server rekey\``,
    );
  }
  const previous = (options.previousAuthSecrets ?? envVars.previousAuthSecrets(env)).filter(
    (secret, index, all) => secret !== '' && secret !== current && all.indexOf(secret) === index,
  );
  return { current, previous };
}
