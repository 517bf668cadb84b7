/**
 * A namespace from an upstream URL's host: its first label that is not `mcp`, `api` or `www`
 * (`https://mcp.linear.app/mcp` is `linear`), `mcp_<port>` for an IP address or `localhost`.
 */
export function nameFromUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (/^[\d.]+$/.test(host) || host.includes(':') || host === 'localhost') {
    return `mcp_${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
  }
  const label = host.split('.').find((part) => !['mcp', 'api', 'www'].includes(part)) ?? host;
  return label
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 64);
}
