import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../../cli-error.js';
import { pathExists } from '../../project/path-exists.js';
import type { TemplateName } from './template-names.js';

/** The values a template's `{{placeholders}}` take. */
export interface TemplateValues {
  /** npm package name, e.g. `@acme/weather`. */
  name: string;
  /** Plugin id, e.g. `weather`; tool paths start with `<id>.`. */
  id: string;
  /** Display name, e.g. `Weather`. */
  title: string;
  /** The id upper-cased, for environment variables such as `WEATHER_API_URL`. */
  envPrefix: string;
}

/** A file of the generated project. */
export interface ProjectFile {
  /** Relative path with `/` separators, e.g. `src/index.ts`. */
  path: string;
  content: string;
}

// Only these names are replaced, so `${{ secrets.NPM_TOKEN }}` in the CI workflow stays as it is.
const PLACEHOLDER = /\{\{(name|id|title|envPrefix)\}\}/g;

/**
 * Finds the `templates` folder of this package by walking up from this module, which works from
 * `src/` under test and from any chunk of `dist/` once published.
 *
 * @throws CliError when the installation has no templates (a broken install).
 */
export async function findTemplatesDir(from = fileURLToPath(import.meta.url)): Promise<string> {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const candidate = join(dir, 'templates');
    if (await pathExists(join(candidate, 'common'))) return candidate;
    if (dirname(dir) === dir) {
      throw new CliError(
        'This installation of @gateway/cli has no project templates; reinstall it (npm install -g @gateway/cli)',
      );
    }
  }
}

/**
 * The files of a new project: `templates/common` overlaid with `templates/<template>`, with
 * placeholders filled in. A path segment starting with `_` starts with `.` in the project, because
 * npm leaves `.gitignore` out of published packages.
 */
export async function renderTemplate(
  template: TemplateName,
  values: TemplateValues,
  templatesDir?: string,
): Promise<ProjectFile[]> {
  const root = templatesDir ?? (await findTemplatesDir());
  const files = new Map<string, string>();
  for (const folder of ['common', template]) {
    const dir = join(root, folder);
    for (const path of await listFiles(dir)) {
      const content = await readFile(join(dir, path), 'utf8');
      files.set(
        projectPath(path),
        content.replace(PLACEHOLDER, (_, key: keyof TemplateValues) => values[key]),
      );
    }
  }
  return [...files]
    .map(([path, content]) => ({ path, content }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

function projectPath(templatePath: string): string {
  return templatePath
    .split(sep)
    .map((segment) => (segment.startsWith('_') ? `.${segment.slice(1)}` : segment))
    .join('/');
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}
