/** The headers of a 2025 `POST /mcp` outside a session, for `token` (see gateway-endpoint.mjs). */
export function mcpHeaders(token: string): Record<string, string>;

/** One JSON-RPC `message` to `{url}/mcp` with `token`, outside a session: the response. */
export function postMcp(url: string, token: string, message: unknown): Promise<Response>;

/**
 * Signs `user` up on `url` and makes them an MCP endpoint with `serviceSecret`, first registering
 * `plugin` when given: the endpoint's token. Throws, naming the step and its status, on a failure.
 */
export function endpointToken(
  url: string,
  serviceSecret: string,
  options: {
    user: { name: string; email: string; password: string };
    endpointName: string;
    plugin?: string;
  },
): Promise<string>;
