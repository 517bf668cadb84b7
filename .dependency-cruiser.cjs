// Import rules: `pnpm check:imports` (part of `pnpm lint`) and
// packages/server/src/import-cycles.test.ts (part of `pnpm test`) fail on a violation, so CI does.
// Type-only imports count: a cycle through
// `import type` still ties two modules together for the reader, and it is the first step to a
// run-time one.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Dependencies point one way (docs/decisions.md, "Code layout"): no module may reach itself through its imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'mcp-call-not-transport',
      severity: 'error',
      comment:
        'The MCP feature has two halves (docs/decisions.md, "The MCP feature\'s two halves"): mcp/call/ runs one tool call and must not know how the request reached it, so it never imports mcp/transport/.',
      from: { path: '^packages/server/src/mcp/call/' },
      to: { path: '^packages/server/src/mcp/transport/' },
    },
    {
      name: 'mcp-shared-not-halves',
      severity: 'error',
      comment:
        'What sits directly in mcp/ (and its discovery/ and federation/) is shared ground both halves use, so it imports neither half; only index.ts, the entry, and the feature-level tests reach into them.',
      from: {
        path: '^packages/server/src/mcp/([^/]+[.]ts$|discovery/|federation/)',
        pathNot: ['[.]test[.]ts$', '^packages/server/src/mcp/index[.]ts$'],
      },
      to: { path: '^packages/server/src/mcp/(call|transport)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@gateway/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
