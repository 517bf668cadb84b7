/**
 * The bin build's barrel rewrite (issue 37): the server's imports of `@gateway/sdk/contract` go
 * to the files defining each name, so a start loads only the contract files it uses.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { definingFiles, importsByFile } from './barrel-by-file.mjs';

const index = fileURLToPath(new URL('../packages/sdk/src/contract/index.ts', import.meta.url));
const dir = dirname(index);
const fileOf = definingFiles(readFileSync(index, 'utf8'), dir);

describe('barrelByFile', () => {
  it("reads each name's file from the contract's index", () => {
    expect(fileOf.get('ENDPOINT_MODES')).toBe(`${dir}/mcp-endpoints.ts`);
    expect(fileOf.get('upstreamAuthSchema')).toBe(`${dir}/registry-sources.ts`);
    expect(fileOf.get('meSchema')).toBe(`${dir}/me.ts`);
  });

  it('splits an import of the barrel into imports of the defining files', () => {
    const source = `import {\n  type ApprovalMode,\n  approvalModeSchema,\n  ENDPOINT_MODES as modes,\n} from '@gateway/sdk/contract';\nconst x = 1;`;
    expect(importsByFile(source, '@gateway/sdk/contract', fileOf)).toBe(
      `import { type ApprovalMode, approvalModeSchema } from "${dir}/registry-sources.ts"; ` +
        `import { ENDPOINT_MODES as modes } from "${dir}/mcp-endpoints.ts";\nconst x = 1;`,
    );
  });

  it('leaves type-only imports, other modules and unknown names as they are', () => {
    const source = [
      "import type { meSchema } from '@gateway/sdk/contract';",
      "import { z } from 'zod';",
      "import { meSchema, notInTheContract } from '@gateway/sdk/contract';",
    ].join('\n');
    expect(importsByFile(source, '@gateway/sdk/contract', fileOf)).toBe(source);
  });
});
