import type { SignedInOptions } from '../../api/signed-in.js';
import type { BrowserOpener } from '../../loopback/browser.js';
import type { SecretPrompt } from '../../prompts/secret.js';

/** Options of `runConnect()`. */
export interface ConnectOptions extends SignedInOptions {
  /** The connector id, as `GET /api/connectors/availability` lists it (e.g. `github`, `weather`). */
  tool: string;
  /** A stored key or token: the connection's name. Default `default`. */
  instanceName?: string | undefined;
  /** A stored key or token: a connection of the same tool to nest this one under. */
  parent?: string | undefined;
  /** A stored key or token: a workspace or project id. */
  workspace?: string | undefined;
  /** A stored key or token: what the connection is for, stored with it. */
  description?: string | undefined;
  /** A stored key or token: connect for the whole team (admins). */
  team?: boolean | undefined;
  /** Read the key (or an OAuth tool's token) from stdin instead of asking. */
  secretStdin?: boolean | undefined;
  /** Where `--secret-stdin` reads. Default `process.stdin`. */
  stdin?: NodeJS.ReadableStream | undefined;
  /** Asks for the key without echo. Default: a @clack/prompts password prompt at a terminal. */
  askSecret?: SecretPrompt | undefined;
  /** OAuth tools: false prints the URL without opening a browser. */
  browser?: boolean | undefined;
  openBrowser?: BrowserOpener | undefined;
  /** OAuth tools: how long to wait for the browser. Default 5 minutes. */
  timeoutMs?: number | undefined;
  json?: boolean | undefined;
}

/** What `gateway connect` made. The secret itself is never part of it. */
export type ConnectResult =
  | {
      /** A stored API key, or (`token`) an OAuth tool's token the user pasted. */
      kind: 'api_key' | 'token';
      id: string;
      toolId: string;
      instanceName: string;
      maskedSecret: string;
      team: boolean;
    }
  | {
      /**
       * `mcp_oauth`: an upstream MCP source, connected at its own authorization server;
       * `plugin_oauth`: an OAuth provider a plugin declares itself.
       */
      kind: 'social' | 'generic' | 'mcp_oauth' | 'plugin_oauth';
      toolId: string;
      status: 'connected';
      /** The user the account is now linked to: the token's own, as the gateway confirmed. */
      userId: string;
    };

/** The flags that only a stored connection (an API key, or an OAuth tool's token) has. */
export function connectionFlags(options: ConnectOptions): string[] {
  return [
    ['--team', options.team],
    ['--instance-name', options.instanceName],
    ['--parent', options.parent],
    ['--workspace', options.workspace],
    ['--description', options.description],
    ['--secret-stdin', options.secretStdin],
  ]
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([flag]) => String(flag));
}
