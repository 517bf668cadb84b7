/** One server-sent event, as the MCP transport reads it. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * A server-sent events parser (the WHATWG event stream format) fed text as it arrives. It keeps
 * only the current line and event, and fails once one event passes `maxBytes` of text: a stream
 * may run for hours, a single event may not be huge.
 *
 * @example
 * const parser = new SseParser(1_000_000, (event) => console.log(event.data));
 * body.setEncoding('utf8');
 * for await (const text of body) parser.push(text);
 */
export class SseParser {
  /** The server's `retry:` field, the reconnection delay it asks for (ms). */
  retryMs: number | undefined;
  readonly #maxBytes: number;
  readonly #onEvent: (event: ServerSentEvent) => void;
  #line = '';
  #afterCr = false;
  #event = '';
  #data: string[] = [];
  #id: string | undefined;
  #size = 0;

  constructor(maxBytes: number, onEvent: (event: ServerSentEvent) => void) {
    this.#maxBytes = maxBytes;
    this.#onEvent = onEvent;
  }

  /**
   * Parses `text`, dispatching each event it completes.
   *
   * @throws RangeError when an event passes `maxBytes`.
   */
  push(text: string): void {
    let start = 0;
    for (let at = 0; at < text.length; at++) {
      const code = text.charCodeAt(at);
      if (code !== 10 && code !== 13) continue;
      // "\r\n" is one line end: the "\n" after a "\r" that ended the previous chunk is skipped.
      if (!(code === 10 && at === start && this.#afterCr && this.#line === '')) {
        this.#field(this.#line + text.slice(start, at));
      }
      this.#line = '';
      this.#afterCr = code === 13;
      if (code === 13 && text.charCodeAt(at + 1) === 10) at++;
      start = at + 1;
    }
    if (start < text.length) {
      this.#afterCr = false;
      this.#line += text.slice(start);
    }
    if (this.#size + this.#line.length > this.#maxBytes) {
      throw new RangeError(`an event over ${this.#maxBytes} bytes`);
    }
  }

  #field(line: string): void {
    this.#size += line.length + 1;
    if (this.#size > this.#maxBytes) throw new RangeError(`an event over ${this.#maxBytes} bytes`);
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ":" a comment (a keep-alive)
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (name === 'data') this.#data.push(value);
    else if (name === 'event') this.#event = value;
    else if (name === 'id' && !value.includes('\0')) this.#id = value;
    else if (name === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  #dispatch(): void {
    const event: ServerSentEvent = {
      event: this.#event === '' ? 'message' : this.#event,
      data: this.#data.join('\n'),
      id: this.#id,
    };
    this.#event = '';
    this.#data = [];
    this.#size = 0;
    this.#onEvent(event);
  }
}
