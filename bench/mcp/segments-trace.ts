/**
 * The analyser of segments.ts (README.md, `crit41`): reads `perf script` text of syscall
 * tracepoints of three processes (the client, the middle, the bare upstream; each one's event-loop
 * thread only) and cuts each sequential call into the segments of its critical path:
 *
 *   client write -> middle wakes -> middle's upstream write -> bare wakes -> bare's answer write
 *   -> middle wakes -> middle's answer write -> client wakes -> the client's next write
 *
 * A process "wakes" at the last `epoll_pwait` that returned events before its read of the socket
 * (its loop may have been awake already: then the segment is the rest of what it was doing). A
 * middle without upstream (the plugin call) has no hop: its segment is request -> answer write.
 * Pure: no process, no file; segments.ts runs perf and finds the sockets' descriptors.
 */

/** One traced system call of a process's event-loop thread. */
export interface TraceEvent {
  /** µs, perf's clock. */
  time: number;
  pid: number;
  cpu: number;
  kind: 'read' | 'write' | 'epoll-enter' | 'epoll-exit';
  /** The descriptor of a read or write. */
  fd: number;
  /** `epoll_pwait`'s events returned (exit) or its timeout in ms (enter, -1 for none). */
  value: number;
}

/** The socket descriptors each process uses for the calls (segments.ts reads them from /proc). */
export interface Roles {
  client: { pid: number; sockets: ReadonlySet<number> };
  middle: { pid: number; client: ReadonlySet<number>; upstream?: ReadonlySet<number> };
  bare?: { pid: number; sockets: ReadonlySet<number> };
}

/** `perf script -F comm,pid,tid,cpu,time,event,trace` lines: `comm pid/tid [cpu] time: event: args`. */
const LINE =
  /^\s*.*?\s(\d+)\/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+syscalls:sys_(enter|exit)_(\w+):\s*(.*)$/;

function hexField(args: string, name: string): number | undefined {
  const value = new RegExp(`${name}: (0x[0-9a-f]+)`).exec(args)?.[1];
  return value === undefined ? undefined : Number.parseInt(value, 16);
}

/** The event-loop threads' (thread id = process id) reads, writes and epoll waits, in order. */
export function parseTrace(text: string): TraceEvent[] {
  const events: TraceEvent[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const [, pid = '', tid = '', cpu = '', time = '', phase = '', call = '', args = ''] = match;
    if (pid !== tid) continue;
    const base = { time: Math.round(Number(time) * 1e6), pid: Number(pid), cpu: Number(cpu) };
    if (call === 'epoll_pwait') {
      if (phase === 'exit') {
        events.push({ ...base, kind: 'epoll-exit', fd: -1, value: Number.parseInt(args, 16) });
      } else {
        const timeout = hexField(args, 'timeout') ?? 0;
        // A 32-bit -1 (0xffffffff): wait with no timeout.
        events.push({ ...base, kind: 'epoll-enter', fd: -1, value: timeout | 0 });
      }
    } else if (phase === 'enter' && (call === 'read' || call === 'write' || call === 'writev')) {
      const fd = hexField(args, 'fd') ?? -1;
      events.push({ ...base, kind: call === 'read' ? 'read' : 'write', fd, value: 0 });
    }
  }
  return events;
}

/** A wake-up across processes: how long, and whether the woken one ran on the waker's core. */
interface Wake {
  us: number;
  sameCore: boolean;
}

/** One call's segments (µs), its wake-ups, and the middle's busy time after its writes. */
export interface CallSegments {
  segments: Record<string, number>;
  wakes: Record<string, Wake>;
  /** From each of the middle's writes to its next blocking `epoll_pwait` (µs). */
  busyAfter: Record<string, number>;
  /** Whether the next request was written before the middle's loop slept after the answer. */
  nextArrivedBusy: boolean;
  /** The middle's writes this call that went to neither socket (journal, stdout, wake-ups). */
  otherWrites: number;
  /** The core each process's event loop ran on when it woke for this call. */
  cores: { client: number; middle: number; bare?: number };
}

/** One process's events, with a cursor that only moves forward (calls are in time order). */
class Lane {
  private readonly events: TraceEvent[];
  constructor(all: readonly TraceEvent[], pid: number) {
    this.events = all.filter((event) => event.pid === pid);
  }

  /** The index of the first event at or after `time` that `test` accepts. */
  find(time: number, test: (event: TraceEvent) => boolean): number | undefined {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.events[mid] as TraceEvent).time < time) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < this.events.length; i++) {
      if (test(this.events[i] as TraceEvent)) return i;
    }
    return undefined;
  }

  /** The events from `from` to `to` (µs, both included). */
  between(from: number, to: number): TraceEvent[] {
    const start = this.find(from, () => true);
    if (start === undefined) return [];
    const found: TraceEvent[] = [];
    for (let i = start; i < this.events.length && (this.events[i] as TraceEvent).time <= to; i++) {
      found.push(this.events[i] as TraceEvent);
    }
    return found;
  }

  at(index: number): TraceEvent {
    return this.events[index] as TraceEvent;
  }

  /** The last `epoll_pwait` exit with events before `index`, not before `floor`. */
  wakeBefore(index: number, floor: number): TraceEvent | undefined {
    for (let i = index - 1; i >= 0; i--) {
      const event = this.events[i] as TraceEvent;
      if (event.time < floor) return undefined;
      if (event.kind === 'epoll-exit' && event.value > 0) return event;
    }
    return undefined;
  }

  /** The time of the first blocking `epoll_pwait` after `time`. */
  sleepsAt(time: number): number | undefined {
    const i = this.find(time, (event) => event.kind === 'epoll-enter' && event.value !== 0);
    return i === undefined ? undefined : this.at(i).time;
  }
}

const on = (kind: TraceEvent['kind'], fds: ReadonlySet<number>) => (event: TraceEvent) =>
  event.kind === kind && fds.has(event.fd);

/**
 * Every whole call in the trace: from each client request write to the next, the calls whose
 * chain of events is complete within that span (the last request has no next one and is left out).
 */
export function cutCalls(events: readonly TraceEvent[], roles: Roles): CallSegments[] {
  const client = new Lane(events, roles.client.pid);
  const middle = new Lane(events, roles.middle.pid);
  const bare = roles.bare === undefined ? undefined : new Lane(events, roles.bare.pid);
  const hop =
    roles.middle.upstream !== undefined && roles.bare !== undefined && bare !== undefined
      ? { upstream: roles.middle.upstream, sockets: roles.bare.sockets, lane: bare }
      : undefined;
  const requests: TraceEvent[] = [];
  for (let i = client.find(0, on('write', roles.client.sockets)); i !== undefined; ) {
    requests.push(client.at(i));
    i = client.find(client.at(i).time + 1, on('write', roles.client.sockets));
  }
  const calls: CallSegments[] = [];
  for (let k = 0; k + 1 < requests.length; k++) {
    const sent = requests[k] as TraceEvent;
    const next = (requests[k + 1] as TraceEvent).time;
    const call = cutCall(sent, next, roles, client, middle, hop);
    if (call !== undefined) calls.push(call);
  }
  return calls;
}

function cutCall(
  sent: TraceEvent,
  next: number,
  roles: Roles,
  client: Lane,
  middle: Lane,
  hop: { upstream: ReadonlySet<number>; sockets: ReadonlySet<number>; lane: Lane } | undefined,
): CallSegments | undefined {
  const segments: Record<string, number> = {};
  const wakes: Record<string, Wake> = {};
  const busyAfter: Record<string, number> = {};
  const read = middle.find(sent.time, on('read', roles.middle.client));
  if (read === undefined) return undefined;
  const woke = middle.wakeBefore(read, sent.time) ?? middle.at(read);
  wakes['client write -> middle wakes'] = wake(sent, woke);
  let answerFrom = woke;
  let bareCore: number | undefined;
  if (hop !== undefined) {
    const upIndex = middle.find(woke.time, on('write', hop.upstream));
    if (upIndex === undefined) return undefined;
    const up = middle.at(upIndex);
    segments['middle: request -> upstream write'] = up.time - woke.time;
    const bareRead = hop.lane.find(up.time, on('read', hop.sockets));
    if (bareRead === undefined) return undefined;
    const bareWoke = hop.lane.wakeBefore(bareRead, up.time) ?? hop.lane.at(bareRead);
    wakes['middle write -> bare wakes'] = wake(up, bareWoke);
    const answered = hop.lane.find(bareWoke.time, on('write', hop.sockets));
    if (answered === undefined) return undefined;
    const bareAnswer = hop.lane.at(answered);
    segments['bare: request -> answer write'] = bareAnswer.time - bareWoke.time;
    const backRead = middle.find(bareAnswer.time, on('read', hop.upstream));
    if (backRead === undefined) return undefined;
    answerFrom = middle.wakeBefore(backRead, bareAnswer.time) ?? middle.at(backRead);
    wakes['bare write -> middle wakes'] = wake(bareAnswer, answerFrom);
    const slept = middle.sleepsAt(up.time);
    if (slept !== undefined) busyAfter['middle: after upstream write'] = slept - up.time;
    bareCore = bareWoke.cpu;
  }
  const answerIndex = middle.find(answerFrom.time, on('write', roles.middle.client));
  if (answerIndex === undefined) return undefined;
  const answer = middle.at(answerIndex);
  segments[
    hop === undefined
      ? 'middle: request -> answer write'
      : 'middle: upstream answer -> answer write'
  ] = answer.time - answerFrom.time;
  const clientRead = client.find(answer.time, on('read', roles.client.sockets));
  if (clientRead === undefined) return undefined;
  const clientWoke = client.wakeBefore(clientRead, answer.time) ?? client.at(clientRead);
  if (clientWoke.time > next) return undefined;
  wakes['middle write -> client wakes'] = wake(answer, clientWoke);
  segments['client: answer -> next request'] = next - clientWoke.time;
  const slept = middle.sleepsAt(answer.time);
  if (slept !== undefined) busyAfter['middle: after answer write'] = slept - answer.time;
  const otherWrites = middle
    .between(woke.time, answer.time)
    .filter(
      (event) =>
        event.kind === 'write' &&
        !roles.middle.client.has(event.fd) &&
        !(hop?.upstream.has(event.fd) ?? false),
    ).length;
  for (const [name, { us }] of Object.entries(wakes)) segments[name] = us;
  segments.total = next - sent.time;
  return {
    segments,
    wakes,
    busyAfter,
    nextArrivedBusy: slept !== undefined && slept > next,
    otherWrites,
    cores: {
      client: clientWoke.cpu,
      middle: woke.cpu,
      ...(bareCore === undefined ? {} : { bare: bareCore }),
    },
  };
}

function wake(waker: TraceEvent, woken: TraceEvent): Wake {
  return { us: woken.time - waker.time, sameCore: woken.cpu === waker.cpu };
}

/** The segments in the order of the call's path (a plugin call has no hop). */
export const PATH = [
  'client write -> middle wakes',
  'middle: request -> upstream write',
  'middle write -> bare wakes',
  'bare: request -> answer write',
  'bare write -> middle wakes',
  'middle: upstream answer -> answer write',
  'middle: request -> answer write',
  'middle write -> client wakes',
  'client: answer -> next request',
];

/** The value at quantile `q` (0..1) of `values`, by nearest rank below. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))] as number;
}

const share = (count: number, of: number) => `${Math.round((100 * count) / Math.max(of, 1))} %`;
const medianP90 = (values: readonly number[]) =>
  values.length === 0
    ? '-'
    : `${quantile(values, 0.5).toFixed(0)} (${quantile(values, 0.9).toFixed(0)})`;

/** The rows of one side's column: label -> cell, in the order they print. */
export function summarise(calls: readonly CallSegments[]): Map<string, string> {
  const cells = new Map<string, string>();
  const values = (pick: (call: CallSegments) => number | undefined) =>
    calls.map(pick).filter((value): value is number => value !== undefined);
  for (const name of [...PATH, 'total']) {
    const found = values((call) => call.segments[name]);
    if (found.length > 0) cells.set(name, medianP90(found));
  }
  const sum = PATH.map((name) => values((call) => call.segments[name]))
    .filter((found) => found.length > 0)
    .reduce((total, found) => total + quantile(found, 0.5), 0);
  cells.set("sum of the segments' medians", sum.toFixed(0));
  for (const name of ['middle: after upstream write', 'middle: after answer write']) {
    const found = values((call) => call.busyAfter[name]);
    if (found.length > 0)
      cells.set(`${name.slice(8)} until its loop sleeps (wall)`, medianP90(found));
  }
  cells.set(
    'next request written while the middle was busy',
    share(calls.filter((call) => call.nextArrivedBusy).length, calls.length),
  );
  const others = values((call) => call.otherWrites);
  cells.set(
    "middle's other writes a call (journal, log, wake-ups)",
    (others.reduce((a, b) => a + b, 0) / Math.max(others.length, 1)).toFixed(2),
  );
  for (const name of PATH.filter((segment) => segment.includes('wakes'))) {
    const wakes = calls.map((call) => call.wakes[name]).filter((w): w is Wake => w !== undefined);
    if (wakes.length === 0) continue;
    const same = wakes.filter((w) => w.sameCore);
    const cross = wakes.filter((w) => !w.sameCore);
    cells.set(
      `${name}: on the waker's core; median same / other core`,
      `${share(same.length, wakes.length)}; ${medianP90(same.map((w) => w.us)).split(' ')[0]} / ${medianP90(cross.map((w) => w.us)).split(' ')[0]}`,
    );
  }
  for (const process of ['client', 'middle', 'bare'] as const) {
    const cores = values((call) => call.cores[process]);
    if (cores.length === 0) continue;
    const counts = new Map<number, number>();
    for (const core of cores) counts.set(core, (counts.get(core) ?? 0) + 1);
    cells.set(
      `${process} woke on`,
      [...counts]
        .sort(([a], [b]) => a - b)
        .map(([core, count]) => `cpu${core} ${share(count, cores.length)}`)
        .join(', '),
    );
  }
  cells.set(
    'client and middle woke on one core',
    share(calls.filter((call) => call.cores.client === call.cores.middle).length, calls.length),
  );
  cells.set('calls cut', String(calls.length));
  return cells;
}

/** A Markdown table of the sides' columns (µs, median (p90)), with the last minus the first. */
export function table(sides: readonly (readonly [string, Map<string, string>])[]): string[] {
  const labels = [...new Set(sides.flatMap(([, cells]) => [...cells.keys()]))];
  const diff = sides.length > 1;
  const lines = [
    `| µs a call, median (p90) | ${sides.map(([name]) => name).join(' | ')} |${diff ? ' diff |' : ''}`,
    `| --- |${sides.map(() => ' --- |').join('')}${diff ? ' --- |' : ''}`,
  ];
  for (const label of labels) {
    const cells = sides.map(([, side]) => side.get(label) ?? '-');
    const [first, last] = [cells[0] ?? '', cells[cells.length - 1] ?? ''];
    const number = /^-?\d+(\.\d+)?( |$)/;
    const numbers = number.test(first) && number.test(last);
    const delta = numbers ? Number.parseFloat(last) - Number.parseFloat(first) : undefined;
    const digits = /^-?\d+\.\d+/.test(last) ? 2 : 0;
    const deltaCell = delta === undefined ? '' : `${delta > 0 ? '+' : ''}${delta.toFixed(digits)}`;
    lines.push(`| ${label} | ${cells.join(' | ')} |${diff ? ` ${deltaCell} |` : ''}`);
  }
  return lines;
}
