// npm's own rules (validate-npm-package-name) for new packages: lowercase, URL-safe, at most 214
// characters, optionally scoped, not starting with . or _.
const PACKAGE_NAME = /^(?:@[a-z0-9-*~][a-z0-9-*._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
const RESERVED = new Set(['node_modules', 'favicon.ico']);

/**
 * Why `name` cannot be an npm package name, or undefined when it can.
 *
 * @example
 * packageNameProblem('Weather'); // 'it must be lowercase'
 */
export function packageNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'it is empty';
  if (name.length > 214) return 'it is longer than 214 characters';
  if (name !== name.toLowerCase()) return 'it must be lowercase';
  if (/^[._]/.test(name)) return 'it must not start with . or _';
  if (!PACKAGE_NAME.test(name))
    return 'use lowercase letters, digits, -, . and _, optionally after a scope like @acme/';
  if (RESERVED.has(unscopedName(name))) return 'that name is reserved';
  return undefined;
}

/** The name without its scope: `@acme/weather` -> `weather`. */
export function unscopedName(name: string): string {
  return name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : name;
}

/**
 * The plugin id for a package name: the unscoped name without a `gateway-`/`gateway-plugin-`
 * prefix or `-plugin` suffix, in `[a-z0-9_]` (tool path segments allow nothing else), starting
 * with a letter.
 *
 * @example
 * toPluginId('@acme/gateway-plugin-weather'); // 'weather'
 * toPluginId('my-notes.app'); // 'my_notes_app'
 */
export function toPluginId(name: string): string {
  const base = unscopedName(name).toLowerCase();
  const trimmed = base.replace(/^gateway-(?:plugin-)?/, '').replace(/-(?:gateway-)?plugin$/, '');
  const id = (trimmed === '' ? base : trimmed)
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (id === '') return 'plugin';
  return /^[a-z]/.test(id) ? id : `plugin_${id}`;
}

/** A display name for a plugin id: `my_notes` -> `My Notes`. */
export function toTitle(id: string): string {
  return id
    .split('_')
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}
