import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

/** A `getToken('<literal>')` or `auth.fetch('<literal>', ...)` call found in a plugin's source. */
export interface TokenCall {
  /** The file, relative to the project, with `/` separators. */
  file: string;
  /** 1-based line of the call. */
  line: number;
  /** The provider id the call names. */
  provider: string;
  /** How it asks: `getToken`, or `auth.fetch` (which sends the credential itself). */
  via: 'getToken' | 'auth.fetch';
}

/** A call naming a provider the plugin does not declare: a failing check. */
export interface UndeclaredTokenCall extends Omit<TokenCall, 'via'> {
  message: string;
}

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
// A tool's own tests may ask for an undeclared provider on purpose, to see the refusal.
const TEST_FILE = /\.(?:test|spec|test-d)\.[^.]+$/;
const SKIPPED_DIRS = new Set(['node_modules', 'coverage']);
// `getToken(` or `auth.fetch(` then a string literal: '...', "..." or `...` without a `${` in it.
const CALL = /\b(getToken|auth\s*\.\s*fetch)\s*\(\s*(?:'([^'\\\n]*)'|"([^"\\\n]*)"|`([^`\\$]*)`)/g;

/**
 * Every `getToken('<literal>')` and `auth.fetch('<literal>', ...)` call in the plugin's source
 * files: those under the folder of
 * `entry` (e.g. `src/` for `src/index.ts`), test files, `node_modules` and hidden folders left
 * out. Best-effort: a provider passed in a variable, or built at run time, is not seen; the
 * gateway still refuses it when the tool runs.
 *
 * @example
 * await scanTokenCalls('/work/weather', 'src/index.ts');
 * // [{ file: 'src/tools/get-forecast.ts', line: 59, provider: 'weather', via: 'getToken' }]
 */
export async function scanTokenCalls(cwd: string, entry: string): Promise<TokenCall[]> {
  const root = join(cwd, dirname(entry));
  const calls: TokenCall[] = [];
  for (const path of await sourceFiles(root)) {
    const text = await readFile(path, 'utf8');
    const file = relative(cwd, path).split(sep).join('/');
    for (const match of text.matchAll(CALL)) {
      const provider = match[2] ?? match[3] ?? match[4] ?? '';
      const via = match[1]?.startsWith('getToken') ? 'getToken' : 'auth.fetch';
      calls.push({ file, line: lineOf(text, match.index), provider, via });
    }
  }
  return calls;
}

/**
 * The calls of {@link scanTokenCalls} whose provider `pluginId` does not declare, each with a
 * message naming the file, line, provider and the fix.
 *
 * @example
 * undeclaredTokenCalls(calls, 'weather', ['weather']);
 * // [{ file: 'src/peek.ts', line: 3, provider: 'github', message: 'src/peek.ts:3: ...' }]
 */
export function undeclaredTokenCalls(
  calls: readonly TokenCall[],
  pluginId: string,
  declared: readonly string[],
): UndeclaredTokenCall[] {
  return calls
    .filter((call) => !declared.includes(call.provider))
    .map(({ via, ...call }) => ({
      ...call,
      message: `${call.file}:${call.line}: ${via === 'getToken' ? `getToken('${call.provider}')` : `auth.fetch('${call.provider}', ...)`} asks for a provider plugin ${pluginId} does not declare; add { id: "${call.provider}", ... } to authProviders in definePlugin()`,
    }));
}

async function sourceFiles(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) {
        files.push(...(await sourceFiles(path)));
      }
    } else if (entry.isFile() && SOURCE.test(entry.name) && !TEST_FILE.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i += 1) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}
