/*!
 * The gateway's Node HTTP adapter for Hono: a fork of the core of @hono/node-server 2.1.8
 * (https://github.com/honojs/node-server), changed so that Node's web globals (`Headers`,
 * `Request`, `Response`: Node's internal undici) load on first use rather than as the module
 * loads, and without HTTP/2 and WebSocket support, which the gateway does not use.
 *
 * MIT License
 *
 * Copyright (c) 2022 - present, Yusuke Wada and Hono contributors
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 */
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenOn } from './listen.js';
import { type FetchCallback, requestListener } from './listener.js';

export type { FetchCallback, NodeBindings } from './listener.js';
export { requestListener } from './listener.js';

/** What {@link serve} listens with. */
export interface ServeOptions {
  /** The app's entry, e.g. `app.fetch`. */
  fetch: FetchCallback;
  /** Defaults to 3000. */
  port?: number;
  /** The address to listen on; also the URL's host of a request without `Host`. */
  hostname?: string;
  /** Node's `http.createServer` options (e.g. `ServerResponse`). */
  serverOptions?: ServerOptions;
}

/**
 * Serves `options.fetch` over HTTP/1.1 with Node's `http` server, as `@hono/node-server`'s
 * `serve` does: returns the server at once and calls `listening` with its address. An IP address
 * is bound without a lookup (listen.ts).
 *
 * @example
 * const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
 *   console.log(`listening on ${info.port}`);
 * });
 */
export function serve(options: ServeOptions, listening?: (info: AddressInfo) => void): Server {
  const server = createServer(
    options.serverOptions ?? {},
    requestListener(options.fetch, { hostname: options.hostname }),
  );
  server.once('listening', () => listening?.(server.address() as AddressInfo));
  listenOn(server, options.port ?? 3000, options.hostname);
  return server;
}
