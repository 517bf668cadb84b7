import type { Server } from 'node:http';
import * as net from 'node:net';

/**
 * `server.listen(port, host)`, without the lookup Node makes of `host` when it is an IP address
 * (issue 37). Node resolves any host it listens on (`dns.lookup`) and tests what it finds against
 * its IPv6 pattern to pass over link-local addresses: that regular expression's first use cost
 * ~11 M instructions of every start. An IPv4 or IPv6 address is bound at once instead
 * (`net.BoundSocket`, Node 24), and the server listens on that socket, as Node would have after
 * its lookup: the same address, port and backlog, SO_REUSEADDR as always (the socket is the
 * process's own, never shared through a `cluster` primary, which the gateway does not use). A host
 * name, or a Node without `BoundSocket`, listens as before. A failed bind (the port in use, not
 * permitted, not an address of this machine) comes as the server's `error` event, as a failed
 * `listen` does, with the same `code` (its `syscall` is `bind`); an argument Node refuses (a port
 * out of range) throws, as `listen` throws it.
 */
export function listenOn(server: Server, port: number, host: string | undefined): void {
  if (host === undefined || !('BoundSocket' in net) || net.isIP(host) === 0) {
    server.listen(port, host);
    return;
  }
  let bound: net.BoundSocket;
  try {
    bound = new net.BoundSocket({ host, port });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).syscall === undefined) throw error;
    process.nextTick(() => server.emit('error', error));
    return;
  }
  server.listen(bound);
}
