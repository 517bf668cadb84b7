import { compilePatterns, patternSchema } from '@gateway/sdk/kernel';
import type { MountedTool } from '../registry/index.js';
import type { Preview } from './schemas.js';

/**
 * What a role with `patterns` would allow among `tools`: each pattern checked on its own (an
 * invalid one is reported, not fatal, so a half-typed pattern does not blank the preview) and
 * the tools the valid ones match together. Compiled with the sdk's `compilePatterns`, the same
 * matcher the policy uses.
 *
 * @example
 * previewPatterns(['notes.**', 'github.repos.*'], catalog.tools());
 */
export function previewPatterns(
  patterns: readonly string[],
  tools: readonly MountedTool[],
): Preview {
  const valid: string[] = [];
  const checked = patterns.map((pattern) => {
    const parsed = patternSchema.safeParse(pattern);
    if (!parsed.success) {
      return { pattern, problem: parsed.error.issues[0]?.message ?? 'invalid pattern', matches: 0 };
    }
    valid.push(pattern);
    return {
      pattern,
      problem: null,
      matches: compilePatterns([pattern]).filter(tools, (tool) => tool.path).length,
    };
  });
  const matched = compilePatterns(valid).filter(tools, (tool) => tool.path);
  return {
    patterns: checked,
    tools: matched.map((tool) => ({
      path: tool.path,
      name: tool.name,
      pluginId: tool.pluginId,
      destructive: tool.destructive,
    })),
    totalTools: tools.length,
  };
}
