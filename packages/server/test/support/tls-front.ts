import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import { onTestFinished } from 'vitest';

/** A TLS-terminating front on 127.0.0.1, as a load balancer serving a gateway over https. */
export interface TlsFront {
  /** `https://127.0.0.1:<port>`, the address to give the gateway as its base URL. */
  url: string;
  /** Sends the front's connections to the plain-HTTP listener on this port from now on. */
  forwardTo(port: number): void;
  /** A dispatcher that trusts the front's self-signed certificate (and no other). */
  dispatcher: Agent;
  /** `fetch` through {@link dispatcher}, redirects not followed. */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

/**
 * Starts a TLS front with a certificate made now for 127.0.0.1 (Debian's `openssl`), which
 * passes each connection's bytes to the listener given by `forwardTo`. Stopped when the test
 * ends.
 */
export async function startTlsFront(): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'],
        ...['-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
        ...['-addext', 'subjectAltName=IP:127.0.0.1'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ],
      { stdio: 'ignore' },
    );
  } catch {
    rmSync(dir, { recursive: true, force: true });
    throw new Error('openssl could not make a test certificate: install openssl');
  }
  const key = readFileSync(join(dir, 'key.pem'));
  const cert = readFileSync(join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });

  let target: number | undefined;
  const open = new Set<Socket>();
  const server = createServer({ key, cert }, (client) => {
    if (target === undefined) {
      client.destroy();
      return;
    }
    const backend = connect(target, '127.0.0.1');
    for (const socket of [client, backend]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => {
        client.destroy();
        backend.destroy();
      });
    }
    client.pipe(backend).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TLS front address');
  const dispatcher = new Agent({ connect: { ca: cert } });
  onTestFinished(async () => {
    for (const socket of open) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dispatcher.close();
  });
  return {
    url: `https://127.0.0.1:${address.port}`,
    forwardTo(port) {
      target = port;
    },
    dispatcher,
    fetch: async (url, init = {}) =>
      (await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        redirect: 'manual',
        dispatcher,
      })) as unknown as Response,
  };
}
