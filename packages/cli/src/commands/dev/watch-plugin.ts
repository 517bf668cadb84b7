import { basename, relative, sep } from 'node:path';
import { watch } from 'chokidar';

/** Folders whose changes never reload a plugin: installs, builds, the dev data, git. */
const IGNORED_FOLDER = /(^|[\\/])(node_modules|dist|\.gateway|\.git)([\\/]|$)/;

/**
 * Whether `file` is one an editor writes beside the file being edited, not a change of the
 * plugin: vim's swap files (`.x.swp`, `.swo`...), its `4913` write probe and `x~` backups, emacs'
 * `.#x` locks and `#x#` autosaves, JetBrains' `___jb_tmp___`/`___jb_old___`, macOS `.DS_Store`.
 *
 * @example
 * isEditorFile('src/.index.ts.swp'); // true
 */
export function isEditorFile(file: string): boolean {
  const name = basename(file);
  return (
    /\.sw[a-p]$/.test(name) ||
    /^\d+$/.test(name) ||
    name.endsWith('~') ||
    name.startsWith('.#') ||
    /^#.*#$/.test(name) ||
    /___jb_(tmp|old)___$/.test(name) ||
    name === '.DS_Store'
  );
}

/** A running watch of a plugin folder. */
export interface PluginWatcher {
  close(): Promise<void>;
}

/**
 * Watches `dir` (and folders made in it later) and calls `onChange` with the files that changed,
 * relative to `dir`, once the edits settle: one call per burst, never two at once, and later
 * changes still reach it when a call fails. Saves that replace the file (a temporary file renamed
 * over it, as `sed -i`, vim and many IDEs do) count as a change of that file; a file made and
 * removed within one burst (the temporary file) counts as nothing. Resolves once watching.
 *
 * A watch of each folder rather than of each file: Node's own recursive `fs.watch` on Linux
 * watched the file's inode, lost it on the first replacing save and then saw nothing (issue 18).
 */
export async function watchPlugin(
  dir: string,
  onChange: (changed: string[]) => Promise<void>,
  {
    delayMs = 150,
    onError = () => {},
  }: { delayMs?: number; onError?: (error: unknown) => void } = {},
): Promise<PluginWatcher> {
  const watcher = watch(dir, {
    ignoreInitial: true,
    ignored: (path) => {
      const inside = relative(dir, path);
      return inside !== '' && (IGNORED_FOLDER.test(inside) || isEditorFile(inside));
    },
  });
  // Changes of this burst: file -> whether it was made within the burst.
  let pending = new Map<string, boolean>();
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const flush = () => {
    const changed = [...pending.keys()];
    pending = new Map();
    if (changed.length === 0) return;
    running = running
      .then(() => onChange(changed))
      .catch(() => {
        // onChange reports its own failures; the next change must still reload.
      });
  };
  watcher.on('all', (event, path) => {
    // A new folder is watched from now on; only the files in it are changes.
    if (event !== 'add' && event !== 'change' && event !== 'unlink') return;
    const file = relative(dir, path).split(sep).join('/');
    if (event === 'unlink' && pending.get(file) === true) pending.delete(file);
    else if (!pending.has(file)) pending.set(file, event === 'add');
    clearTimeout(timer);
    // Editors write a file in several steps; reload once they are done.
    timer = setTimeout(flush, delayMs);
  });
  await new Promise<void>((resolve, reject) => {
    watcher.once('ready', resolve);
    watcher.once('error', reject);
  });
  watcher.on('error', onError);
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}
