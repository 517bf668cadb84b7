/** `gateway-server`'s settings, as `--help` prints them (docs/operations.md has the details). */
export const SETTINGS: readonly (readonly [name: string, meaning: string])[] = [
  ['AUTH_SECRET', 'required, at least 32 characters; signs sessions and encrypts stored secrets'],
  ['GATEWAY_PREVIOUS_AUTH_SECRETS', 'secrets used before AUTH_SECRET, while `rekey` rewrites'],
  ['SERVICE_API_SECRET', 'bearer secret of trusted callers (registry, decrypt, metrics)'],
  ['PORT, HOST', 'listen address (8787, 127.0.0.1)'],
  ['GATEWAY_BASE_URL', 'the address people and clients reach'],
  ['AUTH_BASE_URL', 'the address OAuth callbacks use (GATEWAY_BASE_URL)'],
  ['DATABASE_URL', 'postgres://... or a SQLite file (<data dir>/gateway.db)'],
  ['GATEWAY_DATABASE_POOL_MAX', "PostgreSQL connections one instance's pool opens (10)"],
  ['GATEWAY_DATABASE_CONNECT_TIMEOUT_MS', 'how long a PostgreSQL connect may take (5000)'],
  ['GATEWAY_DATABASE_CONNECTION_LIFETIME_SECONDS', 'how long a PostgreSQL connection serves (300)'],
  ['GATEWAY_DATA_DIR', 'data directory (./.gateway)'],
  ['GATEWAY_CONFIG', 'config file naming plugins (gateway.config.ts or .js)'],
  ['GATEWAY_DEFAULT_ROLE', 'role of users with none assigned (member)'],
  ['GATEWAY_SIGNUP', 'who may create an account: open, invite, closed'],
  ['GATEWAY_SIGNUP_EMAIL_DOMAINS', 'email domains new accounts must have'],
  ['GATEWAY_ADMIN_EMAILS', 'addresses that get the admin role on sign-up'],
  ['GATEWAY_PASSWORD_EMAILS', "how a password sign-up's address counts: trusted, unverified"],
  ['GATEWAY_TOOL_TIMEOUT_SECONDS', "a tool handler's time limit (60)"],
  ['GATEWAY_APPROVAL_TIMEOUT_SECONDS', 'how long a call waits for an approval (300)'],
  ['GATEWAY_ALLOWED_HOSTS', 'further Host names the gateway answers to'],
  ['GATEWAY_ALLOWED_ORIGINS', 'further origins whose pages may send changes'],
  ['GATEWAY_TRUSTED_PROXIES', 'proxies whose X-Forwarded-For is believed'],
  ['GATEWAY_MAX_BODY_BYTES', 'the largest request body (1048576)'],
  ['GATEWAY_MAX_SESSIONS_PER_USER', 'MCP sessions one user may hold on an instance (100)'],
  ['GATEWAY_SHUTDOWN_GRACE_MS', 'how long SIGTERM lets calls in flight finish (25000)'],
  ['GATEWAY_SHUTDOWN_NOTICE_MS', 'how long SIGTERM refuses requests before closing (3000)'],
  ['GATEWAY_REQUEST_HEAD_TIMEOUT_MS', 'time a connection has to send a request head (10000)'],
  ['GATEWAY_KEEP_ALIVE_TIMEOUT_MS', 'how long an idle kept-alive connection stays (5000)'],
  ['GATEWAY_MAX_CONNECTIONS_PER_CLIENT', 'open connections one address may hold (128)'],
  ['GATEWAY_MAX_CONNECTIONS', 'open connections in all (the file limit less a tenth)'],
  ['GATEWAY_CLI_TOKEN_DAYS', 'how long a CLI token works (90)'],
  ['GATEWAY_REGISTRY_SYNC_SECONDS', 'how often registrations are re-read (5)'],
  [
    'GATEWAY_UPSTREAM_ALLOW_PRIVATE',
    'let upstream MCP sources be on loopback or private addresses',
  ],
  [
    'GATEWAY_UPSTREAM_CLIENT_METADATA',
    "offer upstreams' OAuth servers a client ID document (true)",
  ],
  ['GATEWAY_UPSTREAM_MAX_BYTES', 'the largest message from an upstream MCP source (4 MiB)'],
  ['GATEWAY_UPSTREAM_REFRESH_SECONDS', "how often upstreams' tool lists are re-read"],
  ['GATEWAY_METRICS_TOKEN', 'bearer secret of a metrics scraper for GET /metrics'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'send traces over OTLP/HTTP (other OTEL_* variables apply)'],
  ['<PROVIDER>_CLIENT_ID, _CLIENT_SECRET', 'enable an OAuth provider (docs/providers.md)'],
  ['<PROVIDER>_DISPLAY_NAME', "a generic slot's name on sign-in buttons and messages"],
  ['<PROVIDER>_API_KEY', 'a server-supplied key for a provider'],
];

/** What `gateway-server --help` prints. */
export function helpText(): string {
  const width = Math.max(...SETTINGS.map(([name]) => name.length));
  return [
    'usage: gateway-server          serve, with settings from the environment',
    '       gateway-server rekey    re-encrypt stored secrets under AUTH_SECRET',
    '       gateway-server --help   this text',
    '',
    'Settings (environment variables; docs/operations.md has them all):',
    ...SETTINGS.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`),
    '',
  ].join('\n');
}
