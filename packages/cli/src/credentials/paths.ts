import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The folder the CLI keeps its settings in: `$XDG_CONFIG_HOME/gateway` when that is an absolute
 * path (the XDG spec ignores relative ones), else `~/.config/gateway`, with the home folder taken
 * from `HOME` (then `USERPROFILE`, then the OS), so tests can point it at a temporary one.
 *
 * @example
 * configDir({ HOME: '/home/ada' }); // '/home/ada/.config/gateway'
 */
export function configDir(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, 'gateway');
  const home = env.HOME?.trim() || env.USERPROFILE?.trim() || homedir();
  return join(home, '.config', 'gateway');
}

/** The credentials file, used where no OS keychain answers: `<configDir>/credentials.json`. */
export function credentialsFile(env: Env): string {
  return join(configDir(env), 'credentials.json');
}

/** The settings file (no secrets): which gateway the last `gateway login` signed in to. */
export function settingsFile(env: Env): string {
  return join(configDir(env), 'config.json');
}
