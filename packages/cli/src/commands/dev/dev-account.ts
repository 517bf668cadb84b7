import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** What `gateway dev` set up so a tool answers in an MCP client without a sign-up first. */
export interface DevAccess {
  /** The dev account's email; its password is in `accountFile`. */
  email: string;
  /** `<dataDir>/dev-account.json` (mode 0600): email, password, user id and MCP token. */
  accountFile: string;
  /** `<dataDir>/mcp.json` (mode 0600): an `mcpServers` client configuration for this gateway. */
  mcpConfigFile: string;
}

const accountSchema = z.object({
  email: z.string(),
  password: z.string(),
  userId: z.string(),
  mcpToken: z.string(),
});
type DevAccount = z.infer<typeof accountSchema>;

const ACCOUNT_FILE = 'dev-account.json';
const MCP_CONFIG_FILE = 'mcp.json';
const EMAIL = 'dev@gateway.localhost';
const ENDPOINT_NAME = 'gateway dev';
const SERVER_NAME = 'gateway-dev';

/**
 * Gives a local dev gateway a dev account and an MCP endpoint, so the step from `gateway new` to a
 * tool answering in an MCP client is `gateway dev` and one client command. On a fresh data dir it
 * signs up `dev@gateway.localhost` (the first user, so an admin who sees every tool) with a random
 * password and makes it an MCP endpoint; later runs reuse both, making a new endpoint if that one
 * was deleted. Secrets go only to files readable by the owner, never to the terminal: the account
 * in `dev-account.json`, and a ready-to-use client configuration in `mcp.json`, rewritten on every
 * start since the address may change. A data dir where somebody already signed up gets neither:
 * the people there have their own accounts.
 *
 * @returns the files written, or undefined when the data dir belongs to people who signed up.
 */
export async function ensureDevAccess(options: {
  /** Where the gateway listens; requests go over its socket, as a client's would. */
  url: string;
  dataDir: string;
  serviceSecret: string;
}): Promise<DevAccess | undefined> {
  const api = serviceApi(options.url, options.serviceSecret);
  const accountFile = join(options.dataDir, ACCOUNT_FILE);
  let account = await readAccount(accountFile);
  if (account !== undefined && !(await api.userExists(account.userId))) account = undefined;

  if (account === undefined) {
    if (await api.anyUser()) return undefined;
    const password = randomBytes(18).toString('base64url');
    const userId = await api.signUp(EMAIL, password);
    account = { email: EMAIL, password, userId, mcpToken: await api.createEndpoint(userId) };
    await writePrivate(accountFile, account);
  } else if (!(await api.hasEndpoint(account.userId, account.mcpToken))) {
    account = { ...account, mcpToken: await api.createEndpoint(account.userId) };
    await writePrivate(accountFile, account);
  }

  const mcpConfigFile = join(options.dataDir, MCP_CONFIG_FILE);
  await writePrivate(mcpConfigFile, {
    mcpServers: {
      [SERVER_NAME]: {
        type: 'http',
        url: `${options.url}/mcp`,
        headers: { Authorization: `Bearer ${account.mcpToken}` },
      },
    },
  });
  return { email: account.email, accountFile, mcpConfigFile };
}

async function readAccount(file: string): Promise<DevAccount | undefined> {
  try {
    return accountSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    // Missing or edited by hand: a new account is made if the data dir has no users.
    return undefined;
  }
}

async function writePrivate(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created; an older file keeps its mode otherwise.
  await chmod(file, 0o600);
}

/** The routes `ensureDevAccess` needs, called with the service secret. */
function serviceApi(baseUrl: string, serviceSecret: string) {
  const call = async (method: string, path: string, body?: unknown, auth = true) => {
    // better-auth refuses a POST without an Origin it trusts; the gateway's own is one.
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      origin: new URL(baseUrl).origin,
    };
    if (auth) headers.authorization = `Bearer ${serviceSecret}`;
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: response.status, json };
  };
  const expect = (
    result: { status: number; json: Record<string, unknown> },
    status: number,
    what: string,
  ) => {
    if (result.status === status) return result.json;
    const message = (result.json.error as { message?: string } | undefined)?.message;
    throw new Error(`could not ${what}: ${message ?? `HTTP ${result.status}`}`);
  };

  return {
    async anyUser(): Promise<boolean> {
      const json = expect(await call('GET', '/api/users'), 200, 'list users');
      return (json.users as unknown[]).length > 0;
    },
    async userExists(userId: string): Promise<boolean> {
      const json = expect(await call('GET', '/api/users'), 200, 'list users');
      return (json.users as { id: string }[]).some((user) => user.id === userId);
    },
    async signUp(email: string, password: string): Promise<string> {
      const body = { email, password, name: 'Dev' };
      const json = expect(
        await call('POST', '/api/auth/sign-up/email', body, false),
        200,
        'create the dev account',
      );
      return (json.user as { id: string }).id;
    },
    /** Whether the endpoint of `token` is still there; lists show only a token's last four. */
    async hasEndpoint(userId: string, token: string): Promise<boolean> {
      const path = `/api/connections/mcp-endpoints?userId=${encodeURIComponent(userId)}`;
      const json = expect(await call('GET', path), 200, 'list MCP endpoints');
      return (json.endpoints as { name: string; maskedToken: string }[]).some(
        (e) => e.name === ENDPOINT_NAME && e.maskedToken.endsWith(token.slice(-4)),
      );
    },
    async createEndpoint(userId: string): Promise<string> {
      const body = {
        userId,
        name: ENDPOINT_NAME,
        description: 'Made by gateway dev; its client configuration is in .gateway/mcp.json',
      };
      const json = expect(
        await call('POST', '/api/connections/mcp-endpoints', body),
        201,
        'create the dev MCP endpoint',
      );
      return json.token as string;
    },
  };
}
