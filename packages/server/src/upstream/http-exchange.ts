import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { StopSource } from './abort-signals.js';

/** An answer's headers as undici parses them (names in lower case). */
export type AnswerHeaders = Record<string, string | string[] | undefined>;

/**
 * An upstream's answer to one request: a JSON or error body read whole (`text`, undefined when
 * it passed its limit), any other body as a stream, read by its caller.
 */
export type HttpAnswer = { statusCode: number; headers: AnswerHeaders } & (
  | { whole: true; text: string | undefined }
  | { whole: false; body: Readable }
);

/** One request of {@link exchange}. */
export interface ExchangeRequest {
  origin: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
}

/** How much of a body {@link exchange} reads whole: a JSON answer's, an error's (bytes). */
export interface ExchangeLimits {
  json: number;
  error: number;
}

/**
 * Sends `request` through `dispatcher` (undici: its pool, connections and HTTP parser) and
 * answers with its status, headers and body. A JSON answer (status below 400) and an error's
 * body (400 and up) are read whole, each up to its limit; any other body (an event stream, an
 * empty 202) is handed over as a stream that pauses the connection while it is not read.
 *
 * Undici's `request` makes a `Readable` with its own abort wiring and an async resource for every
 * answer, which a JSON answer of a few hundred bytes does not need (issue 37: ~60 k instructions
 * of a federated call in that wrapper, besides the listeners reading the stream back, and twice
 * the GC). `stop` stops the request and its answer (a stream is destroyed with its reason): a
 * call's own stop, heard without a signal made for it; the exchange is in `inFlight` until its
 * answer ends, so its transport can stop it when it closes.
 *
 * `sent`, when given, is told once the request is written to the connection, or once the exchange
 * settles without that (it failed or was stopped first): undici writes a request on a kept-alive
 * connection only from the event loop's check phase (it first lets the connection's pending input
 * be read), so work put off until then runs while the upstream works (issue 37). What it throws
 * goes nowhere: neither to undici nor to the exchange's answer.
 *
 * @throws what undici fails the request with (connection refused or dropped, the policy's refusal
 *   at connect), and the stop's reason when it is stopped first.
 */
export function exchange(
  dispatcher: Dispatcher,
  request: ExchangeRequest,
  limits: ExchangeLimits,
  stop: StopSource | undefined,
  inFlight: InFlight,
  sent?: () => void,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const handler = new Exchange(limits, stop, inFlight, resolve, reject, sent);
    if (handler.stopped !== undefined) return;
    dispatcher.dispatch(
      {
        origin: request.origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
      },
      handler,
    );
  });
}

/**
 * The exchanges of one transport not yet settled ({@link exchange}), which it stops when it closes:
 * a list linked through them. A `Set` that one call at a time filled and emptied cost each call
 * V8's shrinking of its table on the `delete` that emptied it and a new one on the next `add`
 * (issue 37, as `SessionCalls`).
 */
export class InFlight {
  #first: Exchange | undefined;
  #size = 0;

  /** How many are in flight. */
  get size(): number {
    return this.#size;
  }

  add(one: Exchange): void {
    one.next = this.#first;
    if (this.#first !== undefined) this.#first.previous = one;
    this.#first = one;
    this.#size += 1;
  }

  /** Takes `one` off the list; it must be on it (an exchange is deleted once, at its settling). */
  delete(one: Exchange): void {
    const { previous, next } = one;
    if (previous === undefined) this.#first = next;
    else previous.next = next;
    if (next !== undefined) next.previous = previous;
    one.previous = undefined;
    one.next = undefined;
    this.#size -= 1;
  }

  /** Stops every exchange in flight with `reason`. */
  abortAll(reason: Error): void {
    const all: Exchange[] = [];
    for (let one = this.#first; one !== undefined; one = one.next) all.push(one);
    for (const one of all) one.abort(reason);
  }
}

/** Why an exchange was given up by the gateway: stopped, read past its limit, or dropped unread. */
class Dropped extends Error {}

/** The handler of one {@link exchange}, as undici's dispatcher calls it. */
export class Exchange implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange was stopped before undici started it, if it was. */
  stopped: Error | undefined;
  /** Its neighbours in its transport's {@link InFlight} list, while it is in it. */
  previous: Exchange | undefined;
  next: Exchange | undefined;
  /** Whether it is in its transport's {@link InFlight} list. */
  #listed = false;
  #settled = false;
  #chunks: Buffer[] | undefined;
  #size = 0;
  #limit = 0;
  #stream: Readable | undefined;
  #status = 0;
  #headers: AnswerHeaders = {};
  readonly #limits: ExchangeLimits;
  /** Stops listening for the stop, once the exchange is settled. */
  #off: (() => void) | undefined;
  readonly #inFlight: InFlight;
  readonly #resolve: (answer: HttpAnswer) => void;
  readonly #reject: (error: unknown) => void;
  /** Told once the request is written, or the exchange settled first ({@link exchange}). */
  #sent: (() => void) | undefined;

  constructor(
    limits: ExchangeLimits,
    stop: StopSource | undefined,
    inFlight: InFlight,
    resolve: (answer: HttpAnswer) => void,
    reject: (error: unknown) => void,
    sent?: () => void,
  ) {
    this.#sent = sent;
    this.#limits = limits;
    this.#inFlight = inFlight;
    this.#resolve = resolve;
    this.#reject = reject;
    // Told at once when stopped already: `stopped` is then set, nothing is sent.
    const off = stop?.onStop((reason) => this.abort(asReason(reason)));
    if (this.stopped !== undefined) {
      this.#settle();
      reject(this.stopped);
      return;
    }
    this.#off = off;
    inFlight.add(this);
    this.#listed = true;
  }

  /** Stops the request, or its answer's body while it is being read. */
  abort(reason: Error): void {
    if (this.#controller === undefined) {
      this.stopped ??= reason;
      return;
    }
    if (!this.#controller.aborted) this.#controller.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.stopped !== undefined) controller.abort(this.stopped);
  }

  /** Undici's call once the request is written (not in its handler types: its request calls it). */
  onRequestSent(): void {
    this.#tellSent();
  }

  #tellSent(): void {
    const sent = this.#sent;
    if (sent === undefined) return;
    this.#sent = undefined;
    try {
      sent();
    } catch {
      // Never to undici: it aborts a request whose `onRequestSent` throws, one the upstream
      // already has. What is told (`RunningCall.afterSent`) logs its own failures.
    }
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: AnswerHeaders,
  ): void {
    // 1xx: informational, the answer follows.
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
    if (statusCode >= 400 || isJson(headers['content-type'])) {
      this.#chunks = [];
      this.#limit = statusCode >= 400 ? this.#limits.error : this.#limits.json;
      return;
    }
    const stream = new Readable({
      read: () => controller.resume(),
      destroy: (error, done) => {
        // Destroyed by its reader before its end: the connection's answer is abandoned.
        if (!controller.aborted && !this.#settled) {
          controller.abort(error ?? new Dropped('The answer was dropped unread'));
        }
        done(error);
      },
    });
    this.#stream = stream;
    this.#resolve({ statusCode, headers, whole: false, body: stream });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const stream = this.#stream;
    if (stream !== undefined) {
      if (!stream.destroyed && !stream.push(chunk)) controller.pause();
      return;
    }
    const chunks = this.#chunks;
    if (chunks === undefined) return;
    this.#size += chunk.length;
    if (this.#size <= this.#limit) {
      chunks.push(chunk);
      return;
    }
    // Past its limit: the rest is not read, the connection not kept.
    this.#chunks = undefined;
    this.#answer(undefined);
    controller.abort(new Dropped('The answer passed its limit'));
  }

  onResponseEnd(): void {
    const stream = this.#stream;
    if (stream !== undefined) {
      this.#settle();
      stream.push(null);
      return;
    }
    const chunks = this.#chunks;
    if (chunks === undefined) {
      // An answer undici ended before its headers (not seen in practice): nothing to give.
      if (!this.#settled) this.#fail(new Dropped('The upstream answered nothing'));
      return;
    }
    // UTF-8, as `toString` without an encoding reads it straight (with one, it looks it up).
    this.#answer(
      chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString(),
    );
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    const stream = this.#stream;
    if (stream !== undefined) {
      this.#settle();
      if (!stream.destroyed) stream.destroy(error);
      return;
    }
    if (!this.#settled) this.#fail(error);
  }

  #answer(text: string | undefined): void {
    if (this.#settled) return;
    this.#settle();
    this.#resolve({ statusCode: this.#status, headers: this.#headers, whole: true, text });
  }

  #fail(error: unknown): void {
    this.#settle();
    this.#reject(error);
  }

  #settle(): void {
    this.#settled = true;
    this.#tellSent();
    const off = this.#off;
    if (off !== undefined) {
      this.#off = undefined;
      off();
    }
    if (this.#listed) {
      this.#listed = false;
      this.#inFlight.delete(this);
    }
  }
}

/** A stop's reason, as undici's `request` gave a signal's (an abort is its own reason). */
function asReason(reason: unknown): Error {
  return (reason as Error | undefined) ?? new Dropped('The request was stopped');
}

function isJson(value: string | string[] | undefined): boolean {
  if (value === 'application/json') return true;
  const one = Array.isArray(value) ? value[0] : value;
  return one?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}
