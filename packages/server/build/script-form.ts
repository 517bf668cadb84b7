// The `gateway-server` bundle as classic scripts (issue 37): the bin's ES chunks, built by
// esbuild with code splitting, are written again as one script each, which the shipped bin loads
// through `vm.Script` (src/script-loader/). Node's compile cache keeps only the code V8 made when
// a module was compiled, before it ran; a script's code cache can be made after the first answer
// (`createCachedData()`), holding every function that answer compiled, so a warm start compiles
// almost nothing. The published build (tsup.config.ts) and the bundle the system tests spawn
// (test/support/bin-bundle.ts) both go through this, so every system test runs the loader.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'acorn';
import { transform } from 'esbuild';
import { BUILD_ID_FILE } from '../src/script-loader/run-scripts.js';

/** The parameters of a script's wrapper, in the order the loader passes them. */
export const SCRIPT_PARAMETERS = [
  'exports',
  'require',
  'module',
  '__filename',
  '__dirname',
  '__gatewayImport',
  '__gatewayChunk',
  '__gatewayScriptUrl',
] as const;

/** A node of acorn's tree, as far as the walk below reads it. */
interface AstNode {
  type: string;
  start: number;
  end: number;
  source?: AstNode;
  value?: unknown;
  [key: string]: unknown;
}

/** Every `import(...)` expression in `node`, in source order. */
function importExpressions(node: AstNode, found: AstNode[] = []): AstNode[] {
  if (node.type === 'ImportExpression') found.push(node);
  for (const value of Object.values(node)) {
    for (const child of Array.isArray(value) ? value : [value]) {
      if (typeof child === 'object' && child !== null && typeof child.type === 'string') {
        importExpressions(child as AstNode, found);
      }
    }
  }
  return found;
}

/**
 * `code` (a script) with each `import(...)` going through the loader: of another chunk
 * (`import("./chunk-X.js")`, as esbuild writes it) to `__gatewayChunk("chunk-X.js")`, of anything
 * else to `__gatewayImport(...)`, Node's own `import()` from the loader's module. A script run by
 * `vm.Script` has no `import()` of its own without an experimental option.
 */
function routeImports(code: string, chunks: ReadonlySet<string>): string {
  // Most chunks have none: parsing only those that may saves most of a build's time here.
  if (!/\bimport\s*\(/.test(code)) return code;
  const tree = parse(code, { ecmaVersion: 'latest', sourceType: 'script' }) as unknown as AstNode;
  let out = '';
  let at = 0;
  for (const expression of importExpressions(tree)) {
    const source = expression.source;
    const chunk =
      source?.type === 'Literal' &&
      typeof source.value === 'string' &&
      source.value.startsWith('./')
        ? source.value.slice(2)
        : undefined;
    if (chunk !== undefined && !chunks.has(chunk)) {
      throw new Error(`a dynamic import of ./${chunk}, which is no chunk`);
    }
    out +=
      code.slice(at, expression.start) +
      (chunk === undefined
        ? `__gatewayImport${code.slice(expression.start + 'import'.length, expression.end)}`
        : `__gatewayChunk(${JSON.stringify(chunk)})`);
    at = expression.end;
  }
  return out + code.slice(at);
}

/**
 * One ES chunk as a script: CommonJS (esbuild's transform), its dynamic imports of other chunks
 * and everything else through the loader (routeImports), `import.meta.url` the chunk's own URL,
 * and the whole inside a function whose body is strict, as the ES module it was (a failed write
 * to a frozen object throws, `this` in a plain call is `undefined`). Throws on any warning of
 * esbuild's (what the script would not do as the module did).
 */
export async function scriptOf(code: string, chunks: ReadonlySet<string>): Promise<string> {
  const { code: commonJs, warnings } = await transform(code, {
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    minifyWhitespace: true,
    minifySyntax: true,
    define: { 'import.meta.url': '__gatewayScriptUrl' },
    logLevel: 'error',
  });
  // What esbuild warns of does not run as the module did: `import.meta` beyond its url, written
  // as an empty object, is undefined at run time.
  const [warning] = warnings;
  if (warning !== undefined)
    throw new Error(`a chunk the script form cannot keep: ${warning.text}`);
  return `(function(${SCRIPT_PARAMETERS.join(',')}){"use strict";${routeImports(commonJs, chunks)}\n})`;
}

/**
 * Writes every chunk of `esDir` (an ES build with code splitting) as a script into `outDir`
 * (emptied first), with the build's id (a hash of the scripts) in {@link BUILD_ID_FILE}.
 */
export async function writeScriptForm(esDir: string, outDir: string): Promise<void> {
  const files = (await readdir(esDir)).filter((file) => file.endsWith('.js')).sort();
  const chunks = new Set(files);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  // esbuild's service transforms them side by side.
  const scripts = await Promise.all(
    files.map(async (file) => scriptOf(await readFile(join(esDir, file), 'utf8'), chunks)),
  );
  const hash = createHash('sha256');
  for (const [index, file] of files.entries()) {
    const script = scripts[index] ?? '';
    hash.update(file).update('\0').update(script).update('\0');
    await writeFile(join(outDir, file), script);
  }
  await writeFile(join(outDir, BUILD_ID_FILE), hash.digest('hex').slice(0, 20));
}
