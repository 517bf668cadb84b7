/**
 * Network errors of a connection to PostgreSQL that mean the server is away (stopped,
 * restarting, unreachable), not that the query was wrong.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs of a server that cannot serve now: class 08 (connection exception),
 * shutting down or starting up (57P01-57P03), too many connections (53300), and a standby or a
 * read-only server refusing a write (25006).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300|25006)$/;

/** node-postgres's own messages for a connection lost or never made. */
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout|Query read timeout)/;

/**
 * SQLite result codes of a database file this process cannot write now: locked by another
 * connection past the busy timeout, or read-only (file permissions, a read-only mount).
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|READONLY)(_|$)/;

/**
 * True when `error` (or an error it was caused by) says the database cannot be reached or
 * written for now, rather than that a query is wrong: PostgreSQL stopped, restarting or
 * unreachable, or a SQLite file locked or read-only. Such a failure is the server's state, not
 * a bug: it answers 503 `database_unavailable` with `Retry-After`.
 *
 * @example
 * if (isDatabaseUnavailable(error)) return refuse();
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code)) return true;
      if (SQLITE_UNAVAILABLE.test(code)) return true;
    }
    if (PG_MESSAGES.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
