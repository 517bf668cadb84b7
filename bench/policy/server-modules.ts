/**
 * What `server-resolve.ts` needs from the server and sdk sources, loaded as one module graph.
 * The server imports `@gateway/sdk`, which only the workspace tsconfig's `paths` map to the
 * sdk's sources (the package itself points at an unbuilt `dist/`), so `server-resolve.ts` loads
 * this file through tsx with that tsconfig.
 */
export { definePlugin, defineTool, type Plugin } from '@gateway/sdk';
export { PolicyService } from '../../packages/server/src/policy/index.js';
export { PluginCatalog } from '../../packages/server/src/registry/index.js';
export { createTestDatabase } from '../../packages/server/test/db/test-database.js';
