/** What a network error code of the PostgreSQL driver means, in words. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'no host has that name',
  EAI_AGAIN: 'the host name did not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the connection was reset',
};

function networkCode(error: unknown): string | undefined {
  // The driver's error itself, or the cause of an error wrapping it.
  for (let current = error, depth = 0; current !== undefined && depth < 4; depth += 1) {
    const code = (current as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code in REASONS) return code;
    current = (current as { cause?: unknown } | null)?.cause;
  }
  return undefined;
}

/**
 * The one line `gateway-server` prints when it cannot reach PostgreSQL at start: the address it
 * tried (host and port of `DATABASE_URL`, never its user or password), why, and what to check.
 * Undefined when `error` is no network error or the database is not PostgreSQL.
 *
 * @example
 * databaseUnreachableMessage(error, process.env.DATABASE_URL)
 * // 'cannot reach PostgreSQL at 127.0.0.1:5432 (DATABASE_URL): the connection was refused. ...'
 */
export function databaseUnreachableMessage(
  error: unknown,
  databaseUrl: string | undefined,
): string | undefined {
  if (databaseUrl === undefined || !/^postgres(ql)?:\/\//i.test(databaseUrl.trim())) return;
  const code = networkCode(error);
  if (code === undefined) return;
  let url: URL;
  try {
    url = new URL(databaseUrl.trim());
  } catch {
    return;
  }
  const host = url.hostname === '' ? 'localhost' : url.hostname;
  const port = url.port === '' ? '5432' : url.port;
  return (
    `cannot reach PostgreSQL at ${host}:${port} (DATABASE_URL): ${REASONS[code]}. Check that ` +
    'PostgreSQL is running and accepts TCP connections there (its listen_addresses and port, ' +
    'a firewall in between), and that DATABASE_URL names that host and port'
  );
}
