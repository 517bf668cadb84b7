/** Ready-to-paste configurations of the common MCP clients for one endpoint. */
export interface McpClientConfigs {
  /** `claude_desktop_config.json`: Claude Desktop runs local servers only, so through mcp-remote. */
  claudeDesktop: unknown;
  /** `~/.cursor/mcp.json` or `.cursor/mcp.json`. */
  cursor: unknown;
  /** `.vscode/mcp.json`. */
  vscode: unknown;
  /** The mcp-remote command line, for clients configured with a command. */
  command: string;
}

function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/**
 * The MCP client configurations for the endpoint at `mcpUrl` with `token`, under the server
 * name `name`.
 *
 * Claude Desktop's config passes the header through an environment variable with no space
 * after the colon, as mcp-remote recommends, because some clients split arguments on spaces.
 * mcp-remote refuses plain HTTP to hosts other than this machine without `--allow-http`.
 *
 * @example
 * mcpClientConfigs('https://gw.example.com/mcp', 'gw_mcp_...', 'gateway');
 */
export function mcpClientConfigs(mcpUrl: string, token: string, name: string): McpClientConfigs {
  const insecureRemote = (() => {
    const url = new URL(mcpUrl);
    return url.protocol === 'http:' && !isLoopback(url);
  })();
  const allowHttp = insecureRemote ? ['--allow-http'] : [];
  const headers = { Authorization: `Bearer ${token}` };
  return {
    claudeDesktop: {
      mcpServers: {
        [name]: {
          command: 'npx',
          args: [
            '-y',
            'mcp-remote',
            mcpUrl,
            ...allowHttp,
            '--header',
            // mcp-remote itself replaces ${AUTH_HEADER} with the value from `env`.
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal mcp-remote placeholder
            'Authorization:${AUTH_HEADER}',
          ],
          env: { AUTH_HEADER: `Bearer ${token}` },
        },
      },
    },
    cursor: { mcpServers: { [name]: { url: mcpUrl, headers } } },
    vscode: { servers: { [name]: { type: 'http', url: mcpUrl, headers } } },
    command: `npx mcp-remote ${mcpUrl}${insecureRemote ? ' --allow-http' : ''} --header "Authorization: Bearer ${token}"`,
  };
}

/** A config key for the endpoint `name`: `gateway-<slug>`, or `gateway` when nothing is left. */
export function serverName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return slug === '' ? 'gateway' : `gateway-${slug}`;
}
