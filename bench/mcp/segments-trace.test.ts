import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cutCalls, PATH, parseTrace, type Roles, summarise, table } from './segments-trace.js';

/**
 * Three federated calls (four client request writes) from a segments.ts run on the 2-vCPU VM
 * (`crit41` in README.md), the `perf script` text as segments.ts reads it. The client's socket is
 * fd 0x23; the Gateway's client socket 0x17 and upstream socket 0x1d (0x1f its execution journal,
 * 1 its request log); the bare upstream's socket 0x16.
 */
const excerpt = readFileSync(new URL('./segments-trace.fixture.txt', import.meta.url), 'utf8');
const roles: Roles = {
  client: { pid: 17627, sockets: new Set([0x23]) },
  middle: { pid: 17747, client: new Set([0x17]), upstream: new Set([0x1d]) },
  bare: { pid: 17653, sockets: new Set([0x16]) },
};

describe('parseTrace', () => {
  it("keeps each process's event-loop thread only, with epoll's events and timeouts", () => {
    const worker =
      '    WorkerThread 17627/17634 [000]  1774.762400:       syscalls:sys_enter_write: fd: 0x00000023, buf: 0x0, count: 0x00000275';
    const noTimeout =
      '      MainThread 17747/17747 [001]  1774.790000: syscalls:sys_enter_epoll_pwait: epfd: 0x00000010, events: 0x0, maxevents: 0x00000400, timeout: 0xffffffff, sigmask: 0x0, sigsetsize: 0x8';
    const events = parseTrace(`${excerpt}${worker}\n${noTimeout}\n`);
    expect(events).toHaveLength(82);
    expect(events.filter((event) => event.pid === 17627)).toHaveLength(19);
    expect(events[3]).toEqual({
      time: 1774762351,
      pid: 17627,
      cpu: 0,
      kind: 'write',
      fd: 0x23,
      value: 0,
    });
    expect(events[4]).toMatchObject({ kind: 'epoll-exit', value: 1, cpu: 1 });
    // writev counts as a write; a wait with a timeout is a sleep, one without is -1.
    expect(events[9]).toMatchObject({ kind: 'write', fd: 0x1d });
    expect(events[12]).toMatchObject({ kind: 'epoll-enter', value: 4 });
    expect(events.at(-1)).toMatchObject({ kind: 'epoll-enter', value: -1 });
  });
});

describe('cutCalls', () => {
  const calls = cutCalls(parseTrace(excerpt), roles);

  it('cuts each call from its request write to the next into the segments of its path', () => {
    expect(calls).toHaveLength(3);
    // Read off the excerpt's first call by hand (µs).
    expect(calls[0]?.segments).toEqual({
      'client write -> middle wakes': 102,
      'middle: request -> upstream write': 804,
      'middle write -> bare wakes': 177,
      'bare: request -> answer write': 975,
      'bare write -> middle wakes': 53,
      'middle: upstream answer -> answer write': 510,
      'middle write -> client wakes': 1652,
      'client: answer -> next request': 471,
      total: 4744,
    });
    for (const call of calls) {
      const path = PATH.reduce((sum, name) => sum + (call.segments[name] ?? 0), 0);
      expect(path).toBe(call.segments.total);
    }
  });

  it('tells same-core wake-ups from cross-core ones and where each process woke', () => {
    expect(calls[0]?.wakes['client write -> middle wakes']).toEqual({ us: 102, sameCore: false });
    expect(calls[0]?.wakes['middle write -> bare wakes']).toEqual({ us: 177, sameCore: true });
    expect(calls[0]?.cores).toEqual({ client: 0, middle: 1, bare: 1 });
  });

  it("reads the middle's busy time after its writes and its other writes", () => {
    // The next wait with a timeout, not the polls with none between.
    expect(calls[0]?.busyAfter).toEqual({
      'middle: after upstream write': 763401 - 763257,
      'middle: after answer write': 765164 - 764972,
    });
    expect(calls[0]?.nextArrivedBusy).toBe(false);
    // The journal's write before each answer; the second call's request log line besides.
    expect(calls.map((call) => call.otherWrites)).toEqual([1, 2, 1]);
  });

  it('leaves out calls it cannot follow rather than guess', () => {
    const wrongUpstream = { ...roles, middle: { ...roles.middle, upstream: new Set([0x1f]) } };
    expect(cutCalls(parseTrace(excerpt), wrongUpstream)).toEqual([]);
  });

  it('cuts a call with no upstream hop (the plugin call) as request -> answer write', () => {
    const { bare: _, ...plugin } = roles;
    const direct = cutCalls(parseTrace(excerpt), {
      ...plugin,
      middle: { pid: 17747, client: new Set([0x17]) },
    });
    expect(direct[0]?.segments['middle: request -> answer write']).toBe(764972 - 762453);
    expect(direct[0]?.cores).toEqual({ client: 0, middle: 1 });
  });
});

describe('summarise and table', () => {
  it('prints medians (p90) a side and the difference of the last side from the first', () => {
    const calls = cutCalls(parseTrace(excerpt), roles);
    const cells = summarise(calls);
    expect(cells.get('calls cut')).toBe('3');
    expect(cells.get('total')).toMatch(/^\d+ \(\d+\)$/);
    expect(cells.get('middle woke on')).toBe('cpu1 100 %');
    const lines = table([
      ['relay', summarise(calls.slice(0, 1))],
      ['federated', cells],
    ]);
    expect(lines[0]).toBe('| µs a call, median (p90) | relay | federated | diff |');
    expect(lines).toContain(
      "| middle's other writes a call (journal, log, wake-ups) | 1.00 | 1.33 | +0.33 |",
    );
  });
});
