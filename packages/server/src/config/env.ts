/**
 * Every environment variable the server reads, each with its meaning and default: here, and those
 * of OAuth providers in env-providers.ts and of upstream MCP sources in env-upstream.ts. Values
 * are read through functions at use time, never at import time, and an explicit option always
 * beats the environment.
 */
import { findInvalidTrustedProxies } from '@better-auth/core/utils/ip';

export type Env = Readonly<Record<string, string | undefined>>;

/** The variable `name`, trimmed; undefined when unset or blank. */
export function value(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

/** `HOST`: the listen address. Default 127.0.0.1. */
export const host = (env: Env): string => value(env, 'HOST') ?? '127.0.0.1';

/** `PORT`: the listen port. Default 8787. */
export function port(env: Env): number {
  const raw = value(env, 'PORT');
  if (raw === undefined) return 8787;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
    throw new Error(`PORT must be a port number (0-65535), got "${raw}"`);
  }
  return parsed;
}

/** `GATEWAY_BASE_URL`: {base_url}, the address people and clients reach. Default `http://HOST:PORT`. */
export const baseUrl = (env: Env): string | undefined => value(env, 'GATEWAY_BASE_URL');

/** `AUTH_BASE_URL`: {auth_url}, the address used in OAuth callbacks. Default the base URL. */
export const authBaseUrl = (env: Env): string | undefined => value(env, 'AUTH_BASE_URL');

/**
 * `AUTH_SECRET`: signs sessions; SHA-256 of it is the key that encrypts stored secrets. At least
 * 32 characters (`openssl rand -base64 32`); required.
 */
export const authSecret = (env: Env): string | undefined => value(env, 'AUTH_SECRET');

/**
 * `GATEWAY_PREVIOUS_AUTH_SECRETS`: comma-separated auth secrets used before the current
 * `AUTH_SECRET`, newest first. They only decrypt (connections, team connections, better-auth's
 * OAuth tokens); everything new is encrypted under `AUTH_SECRET`. Keep them set until
 * `gateway-server rekey` has rewritten every stored secret, then remove them. Each entry is
 * trimmed; empty entries are ignored. Unlike `AUTH_SECRET`, an entry may be short: a weak secret
 * is exactly what one rotates away from. Default none. `createGateway({ previousAuthSecrets })`
 * beats it.
 *
 * @example
 * previousAuthSecrets({ GATEWAY_PREVIOUS_AUTH_SECRETS: 'old-one, older-one' }); // ['old-one', 'older-one']
 */
export function previousAuthSecrets(env: Env): string[] {
  return (value(env, 'GATEWAY_PREVIOUS_AUTH_SECRETS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** `SERVICE_API_SECRET`: bearer secret of trusted callers (registry, decrypt). Unset: they get 401. */
export const serviceApiSecret = (env: Env): string | undefined => value(env, 'SERVICE_API_SECRET');

/** `GATEWAY_METRICS_TOKEN`: bearer secret of a metrics scraper (`GET /metrics`). Unset: only the service secret reads metrics. */
export const metricsToken = (env: Env): string | undefined => value(env, 'GATEWAY_METRICS_TOKEN');

/** Whether an OTLP endpoint for traces is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or `_TRACES_ENDPOINT`). */
export const tracingConfigured = (env: Env): boolean =>
  value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined ||
  value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined;

/** `DATABASE_URL`: `postgres://...` or a SQLite file path. Default `<data dir>/gateway.db`. */
export const databaseUrl = (env: Env): string | undefined => value(env, 'DATABASE_URL');

/**
 * `GATEWAY_DATABASE_POOL_MAX`: the most PostgreSQL connections one instance's pool opens (the
 * LISTEN connections of approvals and shared sessions come on top). Default 10. Size PostgreSQL's
 * `max_connections` for every instance (docs/deploy.md).
 *
 * @throws Error naming the variable when it is not a whole number from 1 to 1000.
 */
export function databasePoolMax(env: Env): number {
  return wholeNumber(env, 'GATEWAY_DATABASE_POOL_MAX', 10, [1, 1000], 'connections');
}

/**
 * `GATEWAY_DATABASE_CONNECT_TIMEOUT_MS`: how long opening a PostgreSQL connection, or waiting for
 * a free one of the pool, may take before the request gets 503 `database_unavailable`. Default
 * 5000.
 *
 * @throws Error naming the variable when it is not a whole number from 100 to 120000.
 */
export function databaseConnectTimeoutMs(env: Env): number {
  return wholeNumber(
    env,
    'GATEWAY_DATABASE_CONNECT_TIMEOUT_MS',
    5000,
    [100, 120_000],
    'milliseconds',
  );
}

/**
 * `GATEWAY_DATABASE_CONNECTION_LIFETIME_SECONDS`: how long a PostgreSQL connection of the pool
 * serves before it is closed (when next idle; a resting instance so holds none after it); 0 keeps
 * connections open. Default 300.
 *
 * @throws Error naming the variable when it is not a whole number from 0 to 86400.
 */
export function databaseConnectionLifetimeSeconds(env: Env): number {
  return wholeNumber(
    env,
    'GATEWAY_DATABASE_CONNECTION_LIFETIME_SECONDS',
    300,
    [0, 86_400],
    'seconds',
  );
}

/** The whole number of `unit` variable `name` holds, `fallback` when unset, within `range`. */
function wholeNumber(
  env: Env,
  name: string,
  fallback: number,
  [min, max]: readonly [number, number],
  unit: string,
): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const parsed = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(parsed >= min && parsed <= max)) {
    throw new Error(
      `${name} must be a whole number of ${unit} from ${min} to ${max}, got "${raw}"`,
    );
  }
  return parsed;
}

/** `GATEWAY_DATA_DIR`: where the embedded database and generated files live. Default `./.gateway`. */
export const dataDir = (env: Env): string => value(env, 'GATEWAY_DATA_DIR') ?? '.gateway';

/** `GATEWAY_DEFAULT_ROLE`: the role of users with none assigned. Default `member`. */
export const defaultRole = (env: Env): string => value(env, 'GATEWAY_DEFAULT_ROLE') ?? 'member';

/**
 * `GATEWAY_REGISTRY_SYNC_SECONDS`: how often a running gateway re-reads the stored registrations,
 * so one made or removed through another instance sharing the database applies here too.
 * Default 5; 0 turns it off (one instance).
 */
export function registrySyncSeconds(env: Env): number {
  const raw = value(env, 'GATEWAY_REGISTRY_SYNC_SECONDS');
  if (raw === undefined) return 5;
  const parsed = Number(raw);
  if (!Number.isFinite(parsed) || parsed < 0) {
    throw new Error(`GATEWAY_REGISTRY_SYNC_SECONDS must be a number of seconds >= 0, got "${raw}"`);
  }
  return parsed;
}

/** A comma-separated variable as lower-case entries, each once; undefined when none is set. */
export function list(env: Env, name: string): string[] | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const entries = raw
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  return entries.length > 0 ? [...new Set(entries)] : undefined;
}

/**
 * {@link list}, refusing a variable that is set but names nothing (`,`): read as unset, it would
 * mean the opposite of a restriction (`unset` says what).
 */
function nonEmptyList(env: Env, name: string, unset: string): string[] | undefined {
  const entries = list(env, name);
  if (entries === undefined && value(env, name) !== undefined) {
    throw new Error(`${name} is set but names nothing; unset it for ${unset}`);
  }
  return entries;
}

/**
 * `GATEWAY_ALLOWED_HOSTS`: comma-separated host names (no port) that requests may name in `Host`
 * besides those of `GATEWAY_BASE_URL` and `AUTH_BASE_URL` (DNS rebinding protection): names a
 * proxy in front sends, or another name of the same gateway.
 *
 * @throws Error naming the variable when an entry is not a host name.
 */
export function allowedHosts(env: Env): string[] | undefined {
  const hosts = list(env, 'GATEWAY_ALLOWED_HOSTS');
  for (const host of hosts ?? []) {
    if (!/^(?:[a-z0-9-_.]+|\[[0-9a-f:.]+\])$/.test(host)) {
      throw new Error(
        `GATEWAY_ALLOWED_HOSTS must list host names without scheme or port, got "${host}"`,
      );
    }
  }
  return hosts;
}

/**
 * `GATEWAY_ALLOWED_ORIGINS`: comma-separated origins (`https://app.example.com`) whose pages may
 * send state-changing requests, besides the gateway's own.
 *
 * @throws Error naming the variable when an entry is not an origin.
 */
export function allowedOrigins(env: Env): string[] | undefined {
  const origins = list(env, 'GATEWAY_ALLOWED_ORIGINS');
  for (const origin of origins ?? []) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      throw new Error(
        `GATEWAY_ALLOWED_ORIGINS must list origins like https://app.example.com (scheme, host and port, no path), got "${origin}"`,
      );
    }
  }
  return origins;
}

/**
 * `GATEWAY_MAX_BODY_BYTES`: the largest request body accepted on any route, in bytes. Default
 * 1 MiB.
 *
 * @throws Error naming the variable when it is not a positive whole number.
 */
export function maxBodyBytes(env: Env): number {
  const raw = value(env, 'GATEWAY_MAX_BODY_BYTES');
  if (raw === undefined) return 1024 * 1024;
  const parsed = Number(raw);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) {
    throw new Error(`GATEWAY_MAX_BODY_BYTES must be a positive number of bytes, got "${raw}"`);
  }
  return parsed;
}

/** The longest CLI token lifetime accepted: about 100 years keeps every expiry a valid date. */
export const MAX_CLI_TOKEN_DAYS = 36_500;

/**
 * `GATEWAY_CLI_TOKEN_DAYS`: how many days a `gw_cli_` token from `gateway login` works; each token
 * gets its `expires_at` when issued. Default 90. `createGateway({ cliTokenDays })` beats it.
 *
 * @throws Error naming the variable when it is not a whole number of days from 1 to 36,500.
 * @example
 * const days = cliTokenDays(process.env); // 90 when unset
 */
export function cliTokenDays(env: Env): number {
  const raw = value(env, 'GATEWAY_CLI_TOKEN_DAYS');
  if (raw === undefined) return 90;
  const parsed = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(parsed >= 1 && parsed <= MAX_CLI_TOKEN_DAYS)) {
    throw new Error(
      `GATEWAY_CLI_TOKEN_DAYS must be a whole number of days from 1 to ${MAX_CLI_TOKEN_DAYS}, got "${raw}"; set the variable or the cliTokenDays option of createGateway()`,
    );
  }
  return parsed;
}

/**
 * The MCP endpoint settings the environment may give, for `gateway-server` (code passes
 * `createGateway({ mcp })`, which beats these):
 * - `GATEWAY_TOOL_TIMEOUT_SECONDS`: a handler's time limit (default 60);
 * - `GATEWAY_APPROVAL_TIMEOUT_SECONDS`: how long a call waits for an approval (default 300);
 * - `GATEWAY_MAX_SESSIONS_PER_USER`: the most 2025 sessions one user or service account may hold
 *   (default 100).
 *
 * @throws Error naming the variable when a number is not a positive number of seconds, or the
 * session cap not a positive whole number.
 */
export function mcpSettings(env: Env): {
  toolTimeoutMs?: number;
  approvalTimeoutMs?: number;
  maxSessionsPerUser?: number;
} {
  const seconds = (name: string) => {
    const raw = value(env, name);
    if (raw === undefined) return undefined;
    const parsed = Number(raw);
    if (!Number.isFinite(parsed) || parsed <= 0) {
      throw new Error(`${name} must be a positive number of seconds, got "${raw}"`);
    }
    return parsed * 1000;
  };
  const count = (name: string) => {
    const raw = value(env, name);
    if (raw === undefined) return undefined;
    const parsed = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(parsed >= 1)) {
      throw new Error(
        `${name} must be a positive whole number, got "${raw}"; set the variable or the matching createGateway({ mcp }) option`,
      );
    }
    return parsed;
  };
  const settings = {
    toolTimeoutMs: seconds('GATEWAY_TOOL_TIMEOUT_SECONDS'),
    approvalTimeoutMs: seconds('GATEWAY_APPROVAL_TIMEOUT_SECONDS'),
    maxSessionsPerUser: count('GATEWAY_MAX_SESSIONS_PER_USER'),
  };
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
}

/** `GATEWAY_CONFIG`: path of the config file. Default `gateway.config.ts` or `.js` in the working directory. */
export const configPath = (env: Env): string | undefined => value(env, 'GATEWAY_CONFIG');

/** `<NAME>_API_KEY`: a server-supplied key for a tool or provider; NAME is the id upper-cased, non-alphanumerics as `_`. */
export function apiKeyVariable(providerId: string): string {
  return `${providerPrefix(providerId)}_API_KEY`;
}

/** How a tool or provider id starts its variables' names: upper case, non-alphanumerics as `_`. */
export function providerPrefix(providerId: string): string {
  return providerId.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** Reads the server-supplied key for `providerId`, if set. */
export const serverApiKey = (env: Env, providerId: string): string | undefined =>
  value(env, apiKeyVariable(providerId));

/**
 * Every secret value the environment hands the server beyond `AUTH_SECRET` and
 * `SERVICE_API_SECRET`: each `*_API_KEY` and `*_CLIENT_SECRET` variable (whether or not a tool or
 * provider uses it), and the password of the database URL (`DATABASE_URL` and the one given in
 * code). For the log redactor, at start.
 *
 * @example
 * new Redactor([authSecret, serviceApiSecret, ...configuredSecrets(env, databaseUrl)]);
 */
export function configuredSecrets(env: Env, databaseUrlOverride?: string): string[] {
  const secrets: string[] = [];
  for (const name of Object.keys(env)) {
    if (!/_(?:API_KEY|CLIENT_SECRET)$/i.test(name)) continue;
    const secret = value(env, name);
    if (secret !== undefined) secrets.push(secret);
  }
  // The URL in use, and the environment's even when an option replaces it: both are secrets.
  for (const url of new Set([databaseUrlOverride, databaseUrl(env)])) {
    if (url === undefined || !URL.canParse(url)) continue;
    const { password } = new URL(url);
    if (password === '') continue;
    secrets.push(password);
    const decoded = safeDecode(password);
    if (decoded !== password) secrets.push(decoded);
  }
  return secrets;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `GATEWAY_TRUSTED_PROXIES`: comma-separated IPs or CIDR ranges of reverse proxies whose
 * `X-Forwarded-For` is believed when rate limiting by client address. Unset: the socket's peer
 * address is the client (nothing forwarded is trusted).
 *
 * @throws Error naming the variable when an entry is not an IP address or CIDR range (a host
 *   name, `10.0.0.0/33`): the address parser would skip it, and then no forwarded address, not
 *   even the proxy's own, would be believed or counted.
 */
export function trustedProxies(env: Env): string[] {
  const entries = (value(env, 'GATEWAY_TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = findInvalidTrustedProxies(entries);
  if (bad.length > 0) {
    throw new Error(
      `GATEWAY_TRUSTED_PROXIES must be comma-separated IP addresses or CIDR ranges like 10.0.0.0/8, got "${bad.join('", "')}"`,
    );
  }
  return entries;
}

/** How a password sign-up's address counts: as its owner's (`trusted`) or as unverified. */
export type PasswordEmails = 'trusted' | 'unverified';

/**
 * `GATEWAY_PASSWORD_EMAILS`: whether the address of a password sign-up (which Gateway cannot
 * verify: it sends no mail) counts for `GATEWAY_ADMIN_EMAILS`, `GATEWAY_SIGNUP_EMAIL_DOMAINS` and
 * email-bound invites. `trusted` (the default): it does, as the operator's documented risk, so a
 * gateway without a sign-in provider can get its admin. `unverified`: it counts only as an
 * unverified address, like an OAuth sign-up whose provider did not verify it: such a sign-up is
 * never made admin by the list, and is refused under a domain list, closed sign-up or an
 * email-bound invite.
 *
 * @throws Error naming the variable when it is neither.
 */
export function passwordEmails(env: Env): PasswordEmails {
  const raw = value(env, 'GATEWAY_PASSWORD_EMAILS');
  if (raw === undefined) return 'trusted';
  const lower = raw.toLowerCase();
  if (lower === 'trusted' || lower === 'unverified') return lower;
  throw new Error(`GATEWAY_PASSWORD_EMAILS must be trusted or unverified, got "${raw}"`);
}

/** Who may create an account: anyone, only holders of an admin's invite, or nobody new. */
export type SignupMode = 'open' | 'invite' | 'closed';

const SIGNUP_MODES: readonly SignupMode[] = ['open', 'invite', 'closed'];

/**
 * `GATEWAY_SIGNUP`: who may create an account, by any path (email form, CLI sign-in page, first
 * OAuth sign-in). `open` (the default): anyone; `invite`: only with an admin's invite link;
 * `closed`: nobody, except the addresses of `GATEWAY_ADMIN_EMAILS`. Existing users always sign in.
 *
 * @throws Error naming the variable when it is none of the three.
 */
export function signupMode(env: Env): SignupMode {
  const raw = value(env, 'GATEWAY_SIGNUP');
  if (raw === undefined) return 'open';
  const mode = SIGNUP_MODES.find((candidate) => candidate === raw.toLowerCase());
  if (mode === undefined) {
    throw new Error(`GATEWAY_SIGNUP must be open, invite or closed, got "${raw}"`);
  }
  return mode;
}

const DOMAIN =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * `GATEWAY_SIGNUP_EMAIL_DOMAINS`: comma-separated email domains new accounts must be at
 * (`example.com,example.org`), compared case-insensitively and exactly: `example.com` does not
 * admit `eu.example.com`. Unset: any domain. Applies to invited sign-ups too.
 *
 * @throws Error naming the variable when an entry is not a domain name.
 */
export function signupEmailDomains(env: Env): string[] | undefined {
  const domains = nonEmptyList(env, 'GATEWAY_SIGNUP_EMAIL_DOMAINS', 'any domain');
  const bad = domains?.filter((domain) => !DOMAIN.test(domain)) ?? [];
  if (bad.length > 0) {
    throw new Error(
      `GATEWAY_SIGNUP_EMAIL_DOMAINS must be comma-separated domain names like example.com, got "${bad.join('", "')}"`,
    );
  }
  return domains;
}

/**
 * `GATEWAY_ADMIN_EMAILS`: comma-separated addresses (case-insensitive) whose account is made an
 * admin when it is created, by any path, and which may sign up whatever `GATEWAY_SIGNUP` and
 * `GATEWAY_SIGNUP_EMAIL_DOMAINS` say. When set, "the first user becomes admin" is off.
 *
 * @throws Error naming the variable when an entry is not an email address.
 */
export function adminEmails(env: Env): string[] | undefined {
  const emails = nonEmptyList(env, 'GATEWAY_ADMIN_EMAILS', 'the first user as admin');
  const bad = emails?.filter((email) => !EMAIL.test(email)) ?? [];
  if (bad.length > 0) {
    throw new Error(
      `GATEWAY_ADMIN_EMAILS must be comma-separated email addresses, got "${bad.join('", "')}"`,
    );
  }
  return emails;
}
