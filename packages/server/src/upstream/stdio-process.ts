import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  SdkError,
  SdkErrorCode,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { isRecord } from '../json/is-record.js';
import type { StopSource } from './abort-signals.js';
import { TOO_DEEP, tooDeep } from './message-depth.js';

/** What an answer to the gateway's own request that is no JSON-RPC response ends its call with. */
const NOT_A_RESPONSE =
  'The upstream answered with something that is not a JSON-RPC response (a result or an error), which is not MCP';

/** Lines of the process's stderr kept for the reason it stopped. */
const STDERR_LINES = 5;
const STDERR_LINE_CHARS = 300;
/** How long a process may take to go after its stdin closes, and then after SIGTERM. */
const GRACE_MS = 2000;

/** Ends a request of the gateway's own: with its answer, or else with `failure`. */
type Settle = (answer: JSONRPCMessage | undefined, failure?: unknown) => void;

/** A stdio upstream's process that could not be started, saying why in the gateway's words. */
export class StdioStartError extends Error {
  override readonly name = 'StdioStartError';
}

/** How a stdio upstream's process is started. */
export interface StdioProcessOptions {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string | undefined;
  /** The longest line (message) the process may send; a longer one closes the transport. */
  maxBufferSize: number;
  /** Each chunk of the process's stderr, as it comes. */
  onStderr?: (text: string) => void;
}

/**
 * The MCP stdio transport of an upstream process the gateway starts, which unlike the SDK's keeps
 * what a supervisor needs: the exit code or signal and the last lines of stderr ({@link reason}),
 * and a {@link close} that always ends the process and everything it started (npx starts the
 * server as a child): stdin closed, then SIGTERM to its process group, then SIGKILL, and waits
 * until the process is reaped.
 */
export class StdioProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: StdioProcessOptions;
  /** What came of the process's stdout after its last whole line. */
  #unread: Buffer | undefined;
  /** The gateway's own requests ({@link call}) waiting for their answer (or failure), by id. */
  readonly #awaiting = new Map<string, Settle>();
  #calls = 0;
  readonly #stderr: string[] = [];
  #partial = '';
  #child: ChildProcess | undefined;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #exited: Promise<void> = Promise.resolve();
  #closing = false;
  /** The lines of this turn's calls not written yet: they go in one write (see {@link #write}). */
  #pending: string | undefined;

  constructor(options: StdioProcessOptions) {
    this.#options = options;
  }

  /** The process id, while it runs. */
  get pid(): number | undefined {
    return this.#exit === undefined ? this.#child?.pid : undefined;
  }

  /** Whether the gateway is stopping it (an exit now is not a failure). */
  get closing(): boolean {
    return this.#closing;
  }

  /**
   * Why the process is not running, in the gateway's words: how it exited and its last stderr
   * lines; undefined while it runs.
   */
  reason(): string | undefined {
    if (this.#exit === undefined) return undefined;
    const { code, signal } = this.#exit;
    const how = signal !== null ? `was stopped by ${signal}` : `exited with code ${code ?? '?'}`;
    return `${how}${this.stderrTail()}`;
  }

  /** The last lines the process wrote to stderr, as `; stderr: "..."`, or '' when none. */
  stderrTail(): string {
    const lines = [...this.#stderr, this.#partial.trim()].filter((line) => line !== '');
    return lines.length === 0
      ? ''
      : `; stderr: ${JSON.stringify(lines.slice(-STDERR_LINES).join(' | '))}`;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('the upstream process is already started');
    const { command, args, env, cwd } = this.#options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], {
        // Only a safe default environment (PATH, HOME, ...) and the configured one: no gateway
        // secret reaches the process.
        env: { ...getDefaultEnvironment(), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(cwd === undefined ? {} : { cwd }),
        // Its own process group, so stopping it stops what it started (npx runs the server as a
        // child of its own).
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.#child = child;
      this.#exited = new Promise((done) => {
        child.once('exit', (code, signal) => {
          this.#exit = { code, signal };
          done();
        });
      });
      child.once('error', (error) => {
        if (this.#exit === undefined) this.#exit = { code: null, signal: null };
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        // As the SDK client ends its own requests when its transport closes.
        const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
        for (const settle of [...this.#awaiting.values()]) settle(undefined, closed);
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.#append(chunk);
          this.#readMessages();
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void this.close();
        }
      });
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.on('data', (chunk: Buffer) => this.#heard(chunk.toString('utf8')));
      child.stderr?.on('error', () => {});
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#stdin();
      if (stdin === undefined) {
        reject(new Error('the upstream process is not running'));
        return;
      }
      // After this turn's calls' lines, so the process reads the messages in the order sent.
      this.#flush(stdin);
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Stops the process and what it started, and waits until it is gone. Never throws. */
  async close(): Promise<void> {
    this.#closing = true;
    const child = this.#child;
    if (child === undefined) return;
    if (this.#exit === undefined) {
      try {
        // The lines of this turn's calls first, as a corked stream's end would write them.
        if (child.stdin) this.#flush(child.stdin);
        child.stdin?.end();
      } catch {}
      if (!(await this.#exitWithin(GRACE_MS))) {
        this.#signal(child, 'SIGTERM');
        if (!(await this.#exitWithin(GRACE_MS))) this.#signal(child, 'SIGKILL');
      }
      await this.#exited;
    }
    // What it started may outlive it: the group is told too (nothing when it is empty).
    this.#signal(child, 'SIGKILL');
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    this.#unread = undefined;
  }

  /**
   * Sends one request of the gateway's own past the SDK client (issue 37: a plain call needs none
   * of its per-request machinery: request map, timer, progress and abort wiring, schema checks),
   * and answers its answer, a result or a JSON-RPC error, as it came. `stop` (a call's own, no
   * signal made for it) cancels it as the SDK client would: the process is told
   * (`notifications/cancelled`) and the call ends with the stop's reason. Whatever else the
   * process sends goes to `onmessage`, to the SDK client.
   *
   * @throws the stop's reason; `SdkError` `ConnectionClosed` when the process ends first, as
   *   the SDK client's requests do; what {@link send} throws.
   */
  call(method: string, params: Record<string, unknown>, stop: StopSource): Promise<JSONRPCMessage> {
    const stdin = this.#stdin();
    if (stdin === undefined)
      return Promise.reject(new Error('the upstream process is not running'));
    this.#calls += 1;
    const id = `gw-${this.#calls}`;
    let line: string;
    try {
      // The line as `serializeMessage` makes it, without a message object made only to be
      // stringified (the id is `gw-` and digits: nothing to escape).
      line = `{"jsonrpc":"2.0","id":"${id}","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`;
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      let off: (() => void) | undefined;
      const settle: Settle = (answer, failure) => {
        this.#awaiting.delete(id);
        off?.();
        if (answer === undefined) reject(failure);
        else resolve(answer);
      };
      this.#awaiting.set(id, settle);
      let written = false;
      off = stop.onStop((reason) => {
        settle(undefined, reason);
        if (!written) return;
        const cancelled = { requestId: id, reason: String(reason) };
        this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: cancelled }).catch(
          () => {},
        );
      });
      // Stopped already (told at once): settled, and nothing was sent.
      if (!this.#awaiting.has(id)) return;
      written = true;
      // Not held until the pipe drains, as `send` is: the call waits for its answer anyway, and a
      // process that stops reading ends it when it exits or the call's time runs out.
      this.#write(stdin, line);
    });
  }

  /** The process's stdin while it runs and is not being stopped; else undefined. */
  #stdin(): Writable | undefined {
    const stdin = this.#child?.stdin;
    return stdin === undefined || stdin === null || this.#exit !== undefined || this.#closing
      ? undefined
      : stdin;
  }

  /**
   * Writes a call's `line` to the process at the end of this turn of the event loop: the lines of
   * the calls that came in together go in one write, as each write to its pipe costs a system
   * call and wakes the process. Joined into one string rather than corked on the stream: a
   * corked stream keeps an entry per line and writes them with `writev` (issue 37, `stdio38`).
   */
  #write(stdin: Writable, line: string): void {
    if (this.#pending !== undefined) {
      this.#pending += line;
      return;
    }
    this.#pending = line;
    setImmediate(this.#flush, stdin);
  }

  /** Writes the turn's pending lines (see {@link #write}); one function for the process. */
  readonly #flush = (stdin: Writable): void => {
    const lines = this.#pending;
    if (lines === undefined) return;
    this.#pending = undefined;
    if (stdin.writable) stdin.write(lines);
  };

  /** Adds `chunk` to what is unread; a line longer than the largest message is refused. */
  #append(chunk: Buffer): void {
    const unread = this.#unread;
    if ((unread?.length ?? 0) + chunk.length > this.#options.maxBufferSize) {
      this.#unread = undefined;
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#options.maxBufferSize} bytes`);
    }
    this.#unread =
      unread === undefined || unread.length === 0 ? chunk : Buffer.concat([unread, chunk]);
  }

  /**
   * Hands each whole line to whom it is for: the answer to a request of {@link call} to it, parsed
   * once and checked for what the gateway reads of it; any other message to `onmessage` after the
   * SDK's check of a JSON-RPC message (which its stdio transport made of every line). A line that
   * is not JSON is skipped, as the SDK's transport skips it.
   */
  #readMessages(): void {
    for (;;) {
      const unread = this.#unread;
      const end = unread === undefined ? -1 : unread.indexOf(10);
      if (unread === undefined || end === -1) return;
      const line = unread.toString('utf8', 0, end > 0 && unread[end - 1] === 13 ? end - 1 : end);
      // Most chunks are one whole line: nothing is left, and no empty view of it is made.
      this.#unread = end + 1 === unread.length ? undefined : unread.subarray(end + 1);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      if (this.#answersOwn(value)) continue;
      let message: JSONRPCMessage;
      try {
        message = parseJSONRPCMessage(value);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      this.onmessage?.(message);
    }
  }

  /**
   * Whether `value` answers a request of {@link call}, and then settles it: with the answer, or
   * with an error answer when it nests deeper than any MCP message (as `holdToDepth` does for the
   * SDK client's) or is no JSON-RPC response (both a result and an error, neither, an error
   * without its code): the SDK client, which never sent the request, would drop it, and the call
   * would wait for its time limit (as the HTTP transport's answers, issue 37).
   */
  #answersOwn(value: unknown): boolean {
    if (this.#awaiting.size === 0 || !isRecord(value) || typeof value.id !== 'string') return false;
    const settle = this.#awaiting.get(value.id);
    if (settle === undefined || value.jsonrpc !== '2.0' || 'method' in value) return false;
    if (tooDeep(value)) {
      settle({ jsonrpc: '2.0', id: value.id, error: { code: -32600, message: TOO_DEEP } });
      return true;
    }
    const { result, error } = value;
    const answers =
      error === undefined
        ? isRecord(result)
        : result === undefined &&
          isRecord(error) &&
          Number.isInteger(error.code) &&
          typeof error.message === 'string';
    settle(
      answers
        ? (value as JSONRPCMessage)
        : { jsonrpc: '2.0', id: value.id, error: { code: -32600, message: NOT_A_RESPONSE } },
    );
    return true;
  }

  #heard(text: string): void {
    this.#options.onStderr?.(text);
    const lines = (this.#partial + text).split(/\r?\n/);
    this.#partial = (lines.pop() ?? '').slice(-STDERR_LINE_CHARS);
    for (const line of lines) {
      if (line.trim() === '') continue;
      this.#stderr.push(line.trim().slice(0, STDERR_LINE_CHARS));
      if (this.#stderr.length > STDERR_LINES) this.#stderr.shift();
    }
  }

  async #exitWithin(ms: number): Promise<boolean> {
    if (this.#exit !== undefined) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const exited = await Promise.race([this.#exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return exited;
  }

  #signal(child: ChildProcess, signal: NodeJS.Signals): void {
    const pid = child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') child.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // Gone already.
    }
  }
}
