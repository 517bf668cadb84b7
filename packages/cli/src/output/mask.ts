/**
 * A token as it may be shown: its prefix (`gw_cli_`) and last four characters, e.g.
 * `gw_cli_••••••••a1b2`, the way the gateway masks tokens.
 *
 * @example
 * maskToken('gw_cli_abcdefghijklmnopqrstuvwxyz123456'); // 'gw_cli_••••••••3456'
 */
export function maskToken(token: string): string {
  const prefix = /^[a-z]+_[a-z]+_/.exec(token)?.[0] ?? '';
  const rest = token.slice(prefix.length);
  return `${prefix}••••••••${rest.length > 8 ? rest.slice(-4) : ''}`;
}
