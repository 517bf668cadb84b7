/** A ready-to-paste way to connect one AI client to an MCP endpoint. */
export interface ClientConfig {
  id: string;
  client: string;
  /** Where it goes: a file or a terminal. */
  where: string;
  text: string;
}

/**
 * The configurations of the common MCP clients for an endpoint: Streamable HTTP at
 * `{base_url}/mcp` with the token as a bearer header, or the token in the URL for clients that
 * take only a URL.
 *
 * @example
 * clientConfigs('https://gw.example.com', 'gw_mcp_...');
 */
export function clientConfigs(baseUrl: string, token: string): ClientConfig[] {
  const url = `${baseUrl}/mcp`;
  const header = `Bearer ${token}`;
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'Terminal',
      text: `claude mcp add --transport http gateway ${url} --header "Authorization: ${header}"`,
    },
    {
      id: 'cursor',
      client: 'Cursor',
      where: '~/.cursor/mcp.json',
      text: json({ mcpServers: { gateway: { url, headers: { Authorization: header } } } }),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where: '.vscode/mcp.json',
      text: json({
        servers: { gateway: { type: 'http', url, headers: { Authorization: header } } },
      }),
    },
    {
      id: 'claude-desktop',
      client: 'Claude Desktop',
      where: 'claude_desktop_config.json (through mcp-remote)',
      text: json({
        mcpServers: { gateway: { command: 'npx', args: ['-y', 'mcp-remote', `${url}/${token}`] } },
      }),
    },
    {
      id: 'url-only',
      client: 'Any client that takes only a URL',
      where: 'The token is part of the URL: keep it secret',
      text: `${url}/${token}`,
    },
  ];
}
