/**
 * Whose code a JavaScript location is, from its URL or path (`file:///…/index.js:2479:27`,
 * `node:internal/…`): cpu-split.ts sums a call's CPU by it, allocations.ts a call's bytes.
 */
export function originOf(location: string): string {
  if (location.includes('undici')) return 'undici';
  if (location.includes('/hono/')) return 'Hono';
  if (location.includes('/better-sqlite3/')) return "better-sqlite3's JavaScript";
  if (/\/zod\/|\/@modelcontextprotocol\//.test(location)) return 'zod and the MCP SDK';
  if (location.startsWith('node:')) return "Node's own JavaScript";
  if (/\/packages\/(server|sdk)\/dist\/|\/bench\/mcp\//.test(location)) {
    return "the side's own code (the Gateway's, or the bench's relay)";
  }
  return 'other (the tsx loader, wasm, unnamed)';
}
