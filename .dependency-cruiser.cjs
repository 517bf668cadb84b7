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
