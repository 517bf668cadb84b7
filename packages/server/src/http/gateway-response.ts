import {
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';

/**
 * Node's response to a request from the network (the gateway's server makes every response one,
 * `serverOptions.ServerResponse`), with headers that every answer carries added when its head is
 * written ({@link GatewayResponse.preset}): `X-Content-Type-Options` and `X-Request-Id`.
 *
 * Set with `setHeader` before the app ran, those two cost a call more than the rest of its head:
 * each `setHeader` checks and stores its header, and once one is stored, Node writes every header
 * of the answer's own (`writeHead(status, headers)`) through `setHeader` too, where without it
 * the answer's headers object is written as given (bench/mcp/README.md, sess37). Here they join
 * that object, unless the answer sets the same header itself, which then wins as it did.
 *
 * @example
 * serve({ fetch, serverOptions: { ServerResponse: GatewayResponse } });
 * // in a middleware, for a request from the network:
 * outgoing.preset('X-Content-Type-Options', 'nosniff');
 */
export class GatewayResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  /** Names and values, in turn, until the head is written. */
  #preset: string[] | undefined;
  /** What waits for the answer to start going out ({@link GatewayResponse.afterSent}). */
  #afterSent: (() => void) | undefined;

  /** Adds `name: value` to the head of whatever answer this is, unless the answer sets `name`. */
  preset(name: string, value: string): void {
    if (this.#preset === undefined) this.#preset = [name, value];
    else this.#preset.push(name, value);
  }

  /**
   * Runs `work` once the answer has started going out: right after the first `write`,
   * `flushHeaders` or `end` (for an answer of one body, after the system call that sends it), or
   * `destroy` (nothing will go out), or at once when one of them already happened. For work a
   * request does for itself after its answer (its log line), which the client need not wait for:
   * at one client it runs while the client reads the answer (bench/mcp/README.md, sess37). Work
   * given while other work waits runs after it; `work` must not throw.
   */
  afterSent(work: () => void): void {
    if (this.headersSent || this.writableEnded || this.destroyed) {
      work();
      return;
    }
    const waiting = this.#afterSent;
    this.#afterSent =
      waiting === undefined
        ? work
        : () => {
            waiting();
            work();
          };
  }

  #sent(): void {
    const work = this.#afterSent;
    if (work === undefined) return;
    this.#afterSent = undefined;
    work();
  }

  // Node's overloads take (chunk?, encoding?, callback?) in any of their shapes: passed on as
  // given.
  override end(...args: unknown[]): this {
    try {
      return (super.end as (...given: unknown[]) => this)(...args);
    } finally {
      this.#sent();
    }
  }

  override write(...args: unknown[]): boolean {
    try {
      return (super.write as (...given: unknown[]) => boolean)(...args);
    } finally {
      this.#sent();
    }
  }

  override flushHeaders(): void {
    try {
      super.flushHeaders();
    } finally {
      this.#sent();
    }
  }

  /** A response destroyed before anything went out (the client left) still runs what waits. */
  override destroy(error?: Error): this {
    try {
      return super.destroy(error);
    } finally {
      this.#sent();
    }
  }

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    if (typeof reason === 'string') {
      return super.writeHead(statusCode, reason, this.#withPreset(headers));
    }
    return super.writeHead(statusCode, this.#withPreset(reason));
  }

  /**
   * The headers to write: with nothing set through `setHeader`, `given` with the preset headers
   * added; otherwise `given`, the preset headers set through `setHeader` first. Either way the
   * answer's own header of a preset name wins.
   */
  #withPreset(
    given: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined,
  ): OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined {
    const preset = this.#preset;
    if (preset === undefined) return given;
    this.#preset = undefined;
    if (!Array.isArray(given) && this.getHeaderNames().length === 0) {
      const merged: OutgoingHttpHeaders = { ...given };
      for (let i = 0; i < preset.length; i += 2) {
        const name = preset[i] as string;
        if (given === undefined || !hasName(given, name)) merged[name] = preset[i + 1];
      }
      return merged;
    }
    for (let i = 0; i < preset.length; i += 2) {
      const name = preset[i] as string;
      if (!this.hasHeader(name) && !(given !== undefined && hasName(given, name))) {
        this.setHeader(name, preset[i + 1] as string);
      }
    }
    return given;
  }
}

/** Whether `headers` (an object or Node's flat list of names and values) name `name`, in any case. */
function hasName(headers: OutgoingHttpHeaders | OutgoingHttpHeader[], name: string): boolean {
  const lower = name.toLowerCase();
  if (Array.isArray(headers)) {
    // A flat list of names and values, or a list of pairs.
    const pairs = Array.isArray(headers[0]);
    for (let i = 0; i < headers.length; i += pairs ? 1 : 2) {
      const entry = headers[i];
      const given = pairs && Array.isArray(entry) ? entry[0] : entry;
      if (typeof given === 'string' && given.toLowerCase() === lower) return true;
    }
    return false;
  }
  for (const given in headers) {
    if (given.length === lower.length && given.toLowerCase() === lower) return true;
  }
  return false;
}
