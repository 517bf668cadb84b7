import type { Server } from 'node:http';

/**
 * Closes the gateway's listener and resolves once every connection has ended. A keep-alive
 * connection whose last answer went out after the listener closed (a call the stop ended) would
 * otherwise stay open until its idle timeout and hold the stop that long, so idle connections
 * are closed as they appear until then.
 */
export function closeListener(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    if ('closeIdleConnections' in server) {
      const sweep = setInterval(() => server.closeIdleConnections(), 20);
      server.once('close', () => clearInterval(sweep));
    }
  });
}

/**
 * A listen failure an operator can act on, in one sentence; any other error as it is. The
 * error's `code` stays, for callers (`gateway dev`) that word it their own way.
 */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  const message =
    error.code === 'EADDRINUSE'
      ? `port ${port} on ${host} is already in use: stop what is listening there, or set PORT to a free port`
      : error.code === 'EACCES'
        ? `not allowed to listen on port ${port} on ${host}: ports below 1024 need privileges; set PORT to 1024 or above`
        : error.code === 'EADDRNOTAVAIL'
          ? `${host} is not an address of this machine: set HOST to one (e.g. 127.0.0.1)`
          : undefined;
  if (message === undefined) return error;
  return Object.assign(new Error(message, { cause: error }), { code: error.code });
}
