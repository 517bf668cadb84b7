/**
 * The work a `checked` relay does besides forwarding (server.ts): what any gateway that checks
 * what it forwards and records every call must do on a federated call, and nothing more. It
 * measures the floor under the federated ratio: how far the relay's ceiling falls once a
 * forwarder does the work the spec asks of every call (README.md, `floor42`).
 *
 * Done, as the Gateway does it:
 * - the endpoint token looked up in a map (the Gateway keeps a connection's token hash);
 * - the revocation check: 96 bytes read from a file once a turn of the event loop, shared by the
 *   turn's requests (the Gateway's change mark reads SQLite's WAL index header so);
 * - the request parsed and its nesting and tool name checked; the answer parsed and checked alike;
 * - the call's record line (the journal's twelve fields, arguments as JSON) written before the
 *   answer: at once for a lone call, else the turn's lines in one write;
 * - a request id made, answered as `X-Request-Id` with `X-Content-Type-Options`, and a JSON log
 *   line per request, written every 10 ms.
 *
 * Not done, though the Gateway must: the records stored in its database every 50 ms, the tool
 * resolved by role and its arguments checked against its schema, the client's envelope checked,
 * the call's time limit and stop, the arguments redacted in the record, the `Host` and `Origin`
 * checks, the metrics, the answer written anew with the client's id. So the floor is low; but it
 * rides the relay's plumbing (`@hono/node-server`'s `Request`, undici's `request()`), which costs
 * more a call than the Gateway's own adapter and exchange.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The Gateway's nesting limit for a message (upstream/message-depth.ts). */
const MAX_DEPTH = 100;
/** A lone call's record line is written at once (the Gateway's `aloneAfterMs`). */
const ALONE_AFTER_MS = 0.5;

/** The checked call: what the request named, for its record. */
export interface CheckedCall {
  id: string;
  owner: Owner;
  tool: string;
  args: unknown;
  startedAt: number;
}

interface Owner {
  user: string;
  endpoint: string;
}

/** The checks and records of one `checked` relay process. */
export class RelayChecks {
  readonly #markFd: number;
  readonly #journalFd: number;
  readonly #mark = Buffer.alloc(96);
  readonly #owners = new Map<string, Owner>();
  #markRead = false;
  readonly #markTurnEnds = () => {
    this.#markRead = false;
  };
  #lastLineAt = -Infinity;
  #pending: string[] = [];
  #written: Promise<void> | undefined;
  #log: string[] = [];
  #logTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    const dir = mkdtempSync(join(tmpdir(), 'bench-checked-relay-'));
    writeFileSync(join(dir, 'mark'), Buffer.alloc(32_768));
    this.#markFd = openSync(join(dir, 'mark'), 'r');
    this.#journalFd = openSync(join(dir, 'journal.jsonl'), 'a');
  }

  /** Before the upstream's request: the caller, the revocation check, the request's body. */
  request(authorization: string | null, text: string): CheckedCall | undefined {
    const token = authorization ?? '';
    let owner = this.#owners.get(token);
    if (owner === undefined) {
      owner = { user: `user-${this.#owners.size}`, endpoint: `endpoint-${this.#owners.size}` };
      this.#owners.set(token, owner);
    }
    if (!this.#markRead) {
      this.#markRead = true;
      readSync(this.#markFd, this.#mark, 0, 96, 0);
      setImmediate(this.#markTurnEnds);
    }
    const message = JSON.parse(text) as { params?: { name?: unknown; arguments?: unknown } };
    const tool = message.params?.name;
    if (deeperThan(message, MAX_DEPTH) || typeof tool !== 'string') return undefined;
    const args = message.params?.arguments;
    return { id: randomUUID(), owner, tool, args, startedAt: Date.now() };
  }

  /**
   * After the upstream's answer (`text`), before the client's: the answer checked, the call's
   * record line durable. False when the answer is not a result.
   */
  async answer(call: CheckedCall, text: string): Promise<boolean> {
    const answer = JSON.parse(text) as { result?: unknown };
    if (deeperThan(answer, MAX_DEPTH) || typeof answer.result !== 'object') return false;
    const line = JSON.stringify([
      call.id,
      call.owner.user,
      call.tool,
      isoTime(call.startedAt),
      Date.now() - call.startedAt,
      'ok',
      null,
      null,
      JSON.stringify(call.args ?? {}),
      null,
      call.owner.endpoint,
      null,
    ]);
    const now = performance.now();
    const alone = this.#written === undefined && now - this.#lastLineAt >= ALONE_AFTER_MS;
    this.#lastLineAt = now;
    if (alone) writeSync(this.#journalFd, `${line}\n`);
    else await this.#writeInTurn(line);
    this.#logLine(call, 200);
    return true;
  }

  /** The turn's record lines in one write, from the loop's check phase. */
  #writeInTurn(line: string): Promise<void> {
    this.#pending.push(line);
    this.#written ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        writeSync(this.#journalFd, `${this.#pending.join('\n')}\n`);
        this.#pending = [];
        this.#written = undefined;
        resolve();
      }),
    );
    return this.#written;
  }

  #logLine(call: CheckedCall, status: number): void {
    this.#log.push(
      JSON.stringify({
        time: isoTime(Date.now()),
        level: 'info',
        msg: 'request',
        method: 'POST',
        path: '/mcp',
        status,
        durationMs: Date.now() - call.startedAt,
        requestId: call.id,
      }),
    );
    this.#logTimer ??= setTimeout(() => {
      writeSync(1, `${this.#log.join('\n')}\n`);
      this.#log = [];
      this.#logTimer = undefined;
    }, 10);
  }
}

let isoSecond = -1;
let isoHead = '';

/** `ms` as `toISOString()` writes it, its head made once a second (as the Gateway's `isoNow`). */
function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoHead = new Date(second * 1000).toISOString().slice(0, 20);
  }
  return `${isoHead}${String(ms % 1000).padStart(3, '0')}Z`;
}

/** Whether `value` nests deeper than `max` levels of objects and arrays. */
function deeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (max === 0) return true;
  for (const key in value) {
    if (deeperThan((value as Record<string, unknown>)[key], max - 1)) return true;
  }
  return false;
}
