import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The low end of the kernel's ephemeral port range, or 0 where it cannot be read. Every outgoing
 * connection's local port, and every `listen(0)`, comes from that range: a port picked there and
 * bound by another process a moment later can be taken in between by any connection the machine
 * makes (CI runs its checks side by side), so ports to be bound later are picked below it.
 */
function ephemeralFloor() {
  try {
    const floor = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
    return Number.isInteger(floor) && floor > 20_000 ? floor : 0;
  } catch {
    return 0;
  }
}

/** Binds `port` on 127.0.0.1 and lets it go: the port it got, or undefined when it was taken. */
function listenOnce(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 for a server that binds it later (a spawned process, a provider whose
 * address must be known first). Picked at random below the ephemeral range, where neither
 * outgoing connections nor `listen(0)` land, and checked free; the ephemeral way on a system
 * without that range. A server that can report its own port should listen on port 0 instead.
 */
export async function freePort() {
  const floor = ephemeralFloor();
  for (let attempt = 0; floor > 0 && attempt < 50; attempt += 1) {
    const port = 10_000 + Math.floor(Math.random() * (floor - 10_000));
    if ((await listenOnce(port)) !== undefined) return port;
  }
  const port = await listenOnce(0);
  if (port === undefined) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}
