/**
 * The stdio echo upstream of the MCP benchmark: the MCP SDK v2 alone, one `McpServer` serving
 * `bench.echo.say` (the bare HTTP server's tool) over stdio. The benchmark calls it directly over
 * stdio, and the Gateway serves it as a stdio upstream (`io.bench.echo.say`). Plain node, no tsx:
 * a Gateway starts it as an operator's command would be started. Its packages are the server
 * package's (bench/ has no dependencies of its own).
 */
const from = (path) => new URL(`../../packages/server/node_modules/${path}`, import.meta.url).href;
const { McpServer } = await import(from('@modelcontextprotocol/server/dist/index.mjs'));
const { StdioServerTransport } = await import(from('@modelcontextprotocol/server/dist/stdio.mjs'));
const { z } = await import(from('zod/index.js'));

const server = new McpServer({ name: 'bench-stdio', version: '1.0.0' });
server.registerTool(
  'bench.echo.say',
  {
    description: 'Echoes the text.',
    inputSchema: z.object({ text: z.string() }),
    outputSchema: z.object({ text: z.string() }),
    // Read-only, as it says: served as an upstream, it does not ask for approval.
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({
    content: [{ type: 'text', text: JSON.stringify({ text }) }],
    structuredContent: { text },
  }),
);
await server.connect(new StdioServerTransport());
