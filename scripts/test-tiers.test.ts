// test tier: unit
// (This file names the markers it checks, which would otherwise place it in the system tier.)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { placeTestFiles, TIERS, testFilesByTier, tierOf } from './test-tiers.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('test tiers', () => {
  it('places every test file in exactly one tier', () => {
    const placements = placeTestFiles();
    const byTier = testFilesByTier();
    expect(placements.length).toBeGreaterThan(200);
    const all = TIERS.flatMap((tier) => byTier[tier]);
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(placements.map((p) => p.file).sort());
    for (const tier of TIERS) expect(byTier[tier].length).toBeGreaterThan(10);
  });

  it('places the repository files that show each rule', () => {
    expect(tierOf('packages/server/src/web/e2e/admin.e2e.test.ts').tier).toBe('system');
    expect(tierOf('packages/server/src/deploy/deploy-docs.test.ts').tier).toBe('system');
    // Through a helper in test/: run-bin.ts spawns gateway-server.
    expect(tierOf('packages/server/src/start-up.test.ts')).toMatchObject({
      tier: 'system',
      reason: expect.stringContaining('packages/server/test/support/run-bin.ts'),
    });
    expect(tierOf('packages/server/src/mcp/serving.test.ts').tier).toBe('integration');
    expect(tierOf('packages/sdk/src/errors/errors.test.ts').tier).toBe('unit');
    expect(tierOf('scripts/test-tiers.test.ts')).toMatchObject({
      tier: 'unit',
      reason: expect.stringContaining('in the file'),
    });
  });

  describe('a new file lands by what it uses', () => {
    // Outside the repository (so no run of the suite picks them up), in a test/ folder, where
    // helpers are followed.
    const base = mkdtempSync(join(tmpdir(), 'gateway-tiers-'));
    const dir = join(base, 'test');
    mkdirSync(dir);
    afterAll(() => rmSync(base, { recursive: true, force: true }));
    const place = (name: string, source: string) => {
      writeFileSync(join(dir, name), source);
      return tierOf(relative(root, join(dir, name))).tier;
    };

    it('spawning, directly or through a helper in test/, is system', () => {
      expect(place('a.test.ts', "import { spawn } from 'node:child_process';\n")).toBe('system');
      writeFileSync(join(dir, 'helper.ts'), "import { fork } from 'node:child_process';\n");
      expect(place('b.test.ts', "import { start } from './helper.js';\n")).toBe('system');
    });

    it('sockets, HTTP and databases are integration; plain code is unit', () => {
      expect(place('c.test.ts', "await fetch('http://127.0.0.1:1/');\n")).toBe('integration');
      expect(place('d.test.ts', 'const gateway = await createTestGateway();\n')).toBe(
        'integration',
      );
      expect(place('e.test.ts', "import { z } from 'zod';\nz.string();\n")).toBe('unit');
    });

    it('a "test tier" line decides over the rules', () => {
      expect(place('f.test.ts', "// test tier: integration\nimport 'node:child_process';\n")).toBe(
        'integration',
      );
    });
  });
});
