/**
 * Listening without Node's lookup of an IP address (issue 37): the lookup's IPv6 test compiled a
 * large regular expression at every start.
 */
import dns from 'node:dns';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { listenOn } from './listen.js';

function answering(): Server {
  const server = createServer((_request, response) => response.end('up'));
  onTestFinished(
    () =>
      new Promise<void>((resolve) =>
        server.listening ? server.close(() => resolve()) : resolve(),
      ),
  );
  return server;
}

/** A server listening (listenOn) on port 0 of `host`, and Node's `dns.lookup` watched meanwhile. */
async function listeningWatched(host: string) {
  const lookup = vi.spyOn(dns, 'lookup');
  onTestFinished(() => lookup.mockRestore());
  const server = answering();
  listenOn(server, 0, host);
  await once(server, 'listening');
  return { server, lookup };
}

describe('listenOn', () => {
  it('binds an IP address without looking it up, and serves on it', async () => {
    const { server, lookup } = await listeningWatched('127.0.0.1');
    const { address, family, port } = server.address() as AddressInfo;
    expect({ address, family }).toEqual({ address: '127.0.0.1', family: 'IPv4' });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('up');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('looks a host name up, as listen does', async () => {
    const { lookup } = await listeningWatched('localhost');
    expect(lookup).toHaveBeenCalledWith('localhost', expect.anything(), expect.any(Function));
  });

  it("reports a port in use as the server's error event, with listen's code", async () => {
    const taken = answering();
    listenOn(taken, 0, '127.0.0.1');
    await once(taken, 'listening');
    const server = answering();
    listenOn(server, (taken.address() as AddressInfo).port, '127.0.0.1');
    const [error] = (await once(server, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('EADDRINUSE');
    expect(server.listening).toBe(false);
  });

  it('throws a port Node refuses, as listen throws it', () => {
    expect(() => listenOn(answering(), 70_000, '127.0.0.1')).toThrow(
      expect.objectContaining({ code: 'ERR_SOCKET_BAD_PORT' }),
    );
  });

  // Issue 37 review: each behaves as Node's listen did, the IP addresses now bound at once.
  it('binds 0.0.0.0 and :: as listen did: :: takes IPv4 and IPv6 alike', async () => {
    for (const host of ['0.0.0.0', '::']) {
      const { server, lookup } = await listeningWatched(host);
      const { address, port } = server.address() as AddressInfo;
      expect(address).toBe(host);
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('up');
      if (host === '::') expect(await (await fetch(`http://[::1]:${port}/`)).text()).toBe('up');
      expect(lookup).not.toHaveBeenCalled();
    }
  });

  it('binds ::1 for IPv6 alone', async () => {
    const { server } = await listeningWatched('::1');
    const { address, family, port } = server.address() as AddressInfo;
    expect({ address, family }).toEqual({ address: '::1', family: 'IPv6' });
    expect(await (await fetch(`http://[::1]:${port}/`)).text()).toBe('up');
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });

  it("reports an address that is not this machine's as the server's error event, with listen's code", async () => {
    for (const [host, code] of [
      ['192.0.2.1', 'EADDRNOTAVAIL'],
      // Link-local without the interface it belongs to.
      ['fe80::1', 'EINVAL'],
    ]) {
      const server = answering();
      listenOn(server, 0, host);
      const [error] = (await once(server, 'error')) as [NodeJS.ErrnoException];
      expect(error.code, host).toBe(code);
      expect(server.listening).toBe(false);
    }
  });

  it('reports a host name that does not resolve as the error event, as listen does', async () => {
    const server = answering();
    listenOn(server, 0, 'no-such-host.invalid');
    const [error] = (await once(server, 'error')) as [NodeJS.ErrnoException];
    // NXDOMAIN, or no resolver reachable.
    expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(error.code);
  });

  it('lets no other socket share its port, even one asking for SO_REUSEPORT', async () => {
    const { server } = await listeningWatched('127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const thief = answering();
    thief.listen({ port, host: '127.0.0.1', reusePort: true });
    const [error] = (await once(thief, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('EADDRINUSE');
  });
});
