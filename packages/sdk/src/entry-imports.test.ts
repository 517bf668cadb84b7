import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Plugin authors install only the sdk, and its root entry must run anywhere a plugin runs: it may
// import nothing but its own files and zod. The built file is checked again by the pack check.
const here = dirname(fileURLToPath(import.meta.url));
const importPattern =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importGraph(entry: string): { files: Set<string>; external: Set<string> } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
      const specifier = match[1] ?? match[2];
      if (specifier === undefined) continue;
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else external.add(specifier);
    }
  };
  visit(entry);
  return { files, external };
}

describe('the sdk entries', () => {
  it.each(['index.ts', 'kernel/index.ts', 'contract/index.ts'])(
    '%s imports no node: module and no package but zod',
    (entry) => {
      const { files, external } = importGraph(resolve(here, entry));
      expect(files.size).toBeGreaterThan(5);
      expect([...external].filter((name) => name !== 'zod')).toEqual([]);
    },
  );

  // Issue 36: the root entry is the plugin author's API; what the gateway and the CLI share with
  // the sdk is `@gateway/sdk/kernel`. A name added to the root is a public API decision.
  it('the root entry exports the author API only', async () => {
    const root = await import('./index.js');
    expect(Object.keys(root).sort()).toEqual([
      'ApprovalDeniedError',
      'AuthRequiredError',
      'GatewayError',
      'PluginDefinitionError',
      'ToolError',
      'UndeclaredProviderError',
      'UpstreamUnavailableError',
      'askForm',
      'defineAuthProviders',
      'definePlugin',
      'defineTool',
      'defineToolFor',
      'formatProblem',
      'isPlugin',
      'namespaceProblems',
      'requireApproval',
      'validatePlugin',
    ]);
    const kernel = await import('./kernel/index.js');
    expect(Object.keys(kernel).filter((name) => name in root)).toEqual([]);
    expect(kernel.validateToolInput).toBeTypeOf('function');
  });
});
