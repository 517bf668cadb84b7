import type { Plugin } from '@gateway/sdk';
import { providerSetup } from './auth/provider-config.js';
import { checkCliTokenDays } from './cli-auth/index.js';
import type { Env } from './config/env.js';
import * as envVars from './config/env.js';
import {
  type ConnectionSettings,
  connectionSettings,
  REQUEST_TIMEOUT_MS,
} from './config/env-connections.js';
import { type McpOAuthSettings, mcpOAuthSettings } from './config/env-mcp-oauth.js';
import {
  upstreamAllowPrivate,
  upstreamClientMetadata,
  upstreamMaxBytes,
  upstreamRefreshSeconds,
} from './config/env-upstream.js';
import type { LogSink } from './http/logger.js';
import type { SessionResolver } from './identity/index.js';
import { type SignupOptions, type SignupPolicy, signupPolicy } from './invites/index.js';
import type { McpOptions } from './mcp/index.js';
import { resolveAuthSecrets } from './secrets/index.js';

/** Options of `createGateway()`. Each beats its environment variable. */
export interface GatewayOptions {
  /** Plugins to load, beside those named in the config file. */
  plugins?: readonly Plugin[];
  /** The config file (`gateway.config.ts` or `.js`); `false` to read none. Default: looked up in `cwd`. */
  configFile?: string | false;
  /** Where relative paths resolve. Default `process.cwd()`. */
  cwd?: string;
  /** The environment to read settings from. Default `process.env`. */
  env?: Env;
  databaseUrl?: string;
  dataDir?: string;
  /** `AUTH_SECRET`: at least 32 characters; SHA-256 of it encrypts stored secrets. */
  authSecret?: string;
  /**
   * Auth secrets used before `authSecret`, newest first (`GATEWAY_PREVIOUS_AUTH_SECRETS`): what
   * was stored under them still decrypts until `gateway-server rekey` rewrites it.
   */
  previousAuthSecrets?: readonly string[];
  serviceApiSecret?: string;
  baseUrl?: string;
  authBaseUrl?: string;
  host?: string;
  port?: number;
  /** Where JSON log lines go. Default stdout. */
  logSink?: LogSink;
  /** Resolves the signed-in user from a request's cookies. Default: better-auth's sessions. */
  sessionResolver?: SessionResolver;
  /**
   * Host names requests may carry in `Host` besides those of the base and auth URLs
   * (`GATEWAY_ALLOWED_HOSTS`); any other answers 421.
   */
  allowedHosts?: readonly string[];
  /**
   * Origins whose pages may send state-changing requests besides the gateway's own
   * (`GATEWAY_ALLOWED_ORIGINS`); any other answers 403.
   */
  allowedOrigins?: readonly string[];
  /** The largest request body on any route, in bytes (`GATEWAY_MAX_BODY_BYTES`, default 1 MiB). */
  maxBodyBytes?: number;
  /** MCP endpoint settings: tool time limit, approval timeout, sessions. */
  mcp?: McpOptions;
  /**
   * Spans for requests and tool calls through `@opentelemetry/api`, to whatever tracer provider
   * is registered. Default: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `_TRACES_ENDPOINT`) is set
   * (`gateway-server` then registers an OTLP exporter); an application embedding the gateway
   * with its own provider sets it to true.
   */
  tracing?: boolean;
  /**
   * Seconds between re-reads of the stored registrations while listening, so registrations made
   * through another instance apply here (`GATEWAY_REGISTRY_SYNC_SECONDS`, default 5; 0: never).
   */
  registrySyncSeconds?: number;
  /**
   * Days a CLI token from `gateway login` works before the user must sign in again
   * (`GATEWAY_CLI_TOKEN_DAYS`, default 90); a whole number from 1 to 36,500.
   */
  cliTokenDays?: number;
  /** Who may create an account; each field beats its variable (`GATEWAY_SIGNUP`, ...). */
  signup?: SignupOptions;
  /**
   * Connection limits and how a drain stops; each field beats its variable
   * (`GATEWAY_SHUTDOWN_GRACE_MS`, `GATEWAY_MAX_CONNECTIONS_PER_CLIENT`, ... in
   * docs/operations.md). `requestTimeoutMs` (how long a request's body may take to arrive,
   * default 60 s) has no variable.
   */
  connections?: Partial<ConnectionSettings> & { requestTimeoutMs?: number };
  /**
   * Gateway's own authorization server for its MCP endpoint; each field beats its variable
   * (`GATEWAY_MCP_OAUTH`, `GATEWAY_MCP_OAUTH_ACCESS_TOKEN_SECONDS`, ...).
   */
  mcpOAuth?: Partial<McpOAuthSettings>;
}

/**
 * The shortest service secret accepted. It is a password for the most trusted caller (it decrypts
 * stored secrets), and the log redactor only masks secrets of 8 characters or more.
 */
export const MIN_SERVICE_SECRET_LENGTH = 16;

/**
 * Every setting of a gateway, from its options and else its environment, read and checked before
 * anything opens: a bad value fails `createGateway()` at once and leaves no database, pool or
 * socket behind.
 */
export interface GatewaySettings {
  env: Env;
  authSecret: string;
  previousAuthSecrets: readonly string[];
  serviceApiSecret: string | undefined;
  metricsToken: string | undefined;
  host: string;
  port: number;
  baseUrl: string;
  authBaseUrl: string;
  /** The base URL was given (option or `GATEWAY_BASE_URL`): a port learnt at start changes nothing. */
  baseUrlGiven: boolean;
  /** `DATABASE_URL` or the option; undefined: the embedded database in `dataDir`. */
  databaseUrl: string | undefined;
  /** PostgreSQL's pool: its size and connect timeout. */
  databasePool: { max: number; connectTimeoutMs: number; lifetimeSeconds: number };
  dataDir: string;
  defaultRoleId: string;
  mcp: McpOptions;
  maxBodyBytes: number;
  extraHosts: readonly string[];
  extraOrigins: readonly string[];
  cliTokenDays: number;
  signup: SignupPolicy;
  /** `GATEWAY_TRUSTED_PROXIES`: whose `X-Forwarded-For` is believed. */
  trustedProxies: readonly string[];
  /** Connection limits and the drain's timing (env-connections.ts). */
  connections: ConnectionSettings & { requestTimeoutMs: number };
  registrySyncMs: number;
  tracing: boolean;
  upstream: { allowPrivate: boolean; clientMetadata: boolean; maxBytes: number; refreshMs: number };
  mcpOAuth: McpOAuthSettings;
  /** Every secret the server is given, for the log redactor: keys, client secrets, passwords. */
  secrets: string[];
}

/**
 * Reads the settings of `createGateway(options)`: each option beats its variable.
 *
 * @throws Error naming the option or variable, for the first setting that is missing or malformed.
 */
export function readSettings(options: GatewayOptions): GatewaySettings {
  const env = options.env ?? process.env;
  const { authSecret, previousAuthSecrets, serviceApiSecret, metricsToken } = readSecrets(
    options,
    env,
  );
  const host = options.host ?? envVars.host(env);
  const port = options.port ?? envVars.port(env);
  const givenBaseUrl = options.baseUrl ?? envVars.baseUrl(env);
  const baseUrl =
    givenBaseUrl === undefined
      ? listenUrl(host, port)
      : webAddress(givenBaseUrl, 'GATEWAY_BASE_URL (or the baseUrl option)');
  const maxBodyBytes = readMaxBodyBytes(options, env);
  const givenAuthBaseUrl = options.authBaseUrl ?? envVars.authBaseUrl(env);
  const authBaseUrl =
    givenAuthBaseUrl === undefined
      ? baseUrl
      : webAddress(givenAuthBaseUrl, 'AUTH_BASE_URL (or the authBaseUrl option)');
  // Every sign-in provider's settings (their URLs above all), now rather than at the first sign-in.
  providerSetup(env, authBaseUrl);
  return {
    env,
    authSecret,
    previousAuthSecrets,
    serviceApiSecret,
    metricsToken,
    host,
    port,
    baseUrl,
    authBaseUrl,
    baseUrlGiven: givenBaseUrl !== undefined,
    databaseUrl: options.databaseUrl ?? envVars.databaseUrl(env),
    databasePool: {
      max: envVars.databasePoolMax(env),
      connectTimeoutMs: envVars.databaseConnectTimeoutMs(env),
      lifetimeSeconds: envVars.databaseConnectionLifetimeSeconds(env),
    },
    dataDir: options.dataDir ?? envVars.dataDir(env),
    defaultRoleId: envVars.defaultRole(env),
    mcp: { ...envVars.mcpSettings(env), ...options.mcp },
    maxBodyBytes,
    extraHosts: options.allowedHosts ?? envVars.allowedHosts(env) ?? [],
    extraOrigins: options.allowedOrigins ?? envVars.allowedOrigins(env) ?? [],
    cliTokenDays: checkCliTokenDays(options.cliTokenDays ?? envVars.cliTokenDays(env)),
    signup: signupPolicy(env, options.signup),
    trustedProxies: envVars.trustedProxies(env),
    connections: {
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      ...connectionSettings(env),
      ...options.connections,
    },
    registrySyncMs:
      envVars.registrySyncSeconds(
        options.registrySyncSeconds === undefined
          ? env
          : { GATEWAY_REGISTRY_SYNC_SECONDS: String(options.registrySyncSeconds) },
      ) * 1000,
    tracing: options.tracing ?? envVars.tracingConfigured(env),
    upstream: {
      allowPrivate: upstreamAllowPrivate(env),
      clientMetadata: upstreamClientMetadata(env),
      maxBytes: upstreamMaxBytes(env),
      refreshMs: upstreamRefreshSeconds(env) * 1000,
    },
    mcpOAuth: { ...mcpOAuthSettings(env), ...options.mcpOAuth },
    secrets: [
      authSecret,
      ...previousAuthSecrets,
      ...(serviceApiSecret === undefined ? [] : [serviceApiSecret]),
      ...(metricsToken === undefined ? [] : [metricsToken]),
      ...envVars.configuredSecrets(env, options.databaseUrl),
    ],
  };
}

/**
 * The secrets that open the gateway: better-auth's (current and previous), the service secret and
 * the metrics token, each long enough.
 */
function readSecrets(
  options: GatewayOptions,
  env: Env,
): Pick<
  GatewaySettings,
  'authSecret' | 'previousAuthSecrets' | 'serviceApiSecret' | 'metricsToken'
> {
  const { current: authSecret, previous: previousAuthSecrets } = resolveAuthSecrets(options, env);
  const serviceApiSecret = options.serviceApiSecret ?? envVars.serviceApiSecret(env);
  if (serviceApiSecret !== undefined && serviceApiSecret.length < MIN_SERVICE_SECRET_LENGTH) {
    throw new Error(
      `SERVICE_API_SECRET is shorter than ${MIN_SERVICE_SECRET_LENGTH} characters: set the variable (or the serviceApiSecret option) to a longer one, e.g. openssl rand -base64 32, or leave it unset to turn off the trusted-caller routes`,
    );
  }
  const metricsToken = envVars.metricsToken(env);
  if (metricsToken !== undefined && metricsToken.length < MIN_SERVICE_SECRET_LENGTH) {
    throw new Error(
      `GATEWAY_METRICS_TOKEN is shorter than ${MIN_SERVICE_SECRET_LENGTH} characters: set it to a longer one, e.g. openssl rand -base64 32, or leave it unset (then only SERVICE_API_SECRET reads /metrics)`,
    );
  }
  return { authSecret, previousAuthSecrets, serviceApiSecret, metricsToken };
}

/** The largest request body accepted, a positive number of bytes. */
function readMaxBodyBytes(options: GatewayOptions, env: Env): number {
  const maxBodyBytes = options.maxBodyBytes ?? envVars.maxBodyBytes(env);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new Error(
      `createGateway({ maxBodyBytes }) must be a positive number, got ${maxBodyBytes}`,
    );
  }
  return maxBodyBytes;
}

/** The address of what listens on `host` and `port`: an IPv6 literal (`::1`) in brackets. */
export function listenUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * An address people and clients reach, as the gateway compares and prints it: an `http:` or
 * `https:` URL in its normal form (`HTTPS://GW.example.com/` is `https://gw.example.com`, so every
 * check of the scheme sees the lower-case one), without a trailing slash.
 *
 * @throws Error naming the setting when it is not such a URL.
 */
function webAddress(raw: string, name: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`${name} must be an http:// or https:// URL, e.g. https://gateway.example.com`);
  }
  return url.href.replace(/\/+$/, '');
}
