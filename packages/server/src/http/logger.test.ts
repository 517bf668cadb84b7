import { describe, expect, it, vi } from 'vitest';
import { batchedSink, createLogger, isoNow } from './logger.js';
import { REDACTED, Redactor } from './redact.js';
import { withRequestId } from './request-id.js';

describe('createLogger', () => {
  const secret = 'configured-secret-value';
  const capture = () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor([secret]));
    const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    return { logger, lines, parsed };
  };

  it('writes one JSON line per call: time, level, message, then the fields', () => {
    const { logger, lines, parsed } = capture();
    logger.info('request', { route: '/mcp', status: 200, userId: undefined });
    logger.warn('bare');
    expect(lines.every((line) => line.endsWith('}\n') && !line.slice(0, -1).includes('\n'))).toBe(
      true,
    );
    const [first, second] = parsed();
    expect(Object.keys(first ?? {})).toEqual(['time', 'level', 'msg', 'route', 'status']);
    expect(first).toMatchObject({ level: 'info', msg: 'request', route: '/mcp', status: 200 });
    expect(new Date(first?.time as string).toISOString()).toBe(first?.time);
    expect(second).toEqual({ time: expect.any(String), level: 'warn', msg: 'bare' });
  });

  it('writes the fields the gateway made as they are, and scrubs the rest and its base fields', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) }, new Redactor([secret]));
    const child = logger.child({ component: `at ${secret}` });
    child.infoMade(
      `made ${secret}`,
      { route: '/mcp/:token', status: 200, durationMs: 1.5, none: undefined },
      { userId: secret, header: `Bearer ${'a'.repeat(20)}`, msg: 'not the message' },
    );
    logger.infoMade('bare', {}, {});
    expect(lines[0]?.replace(/^\{"time":"[^"]+"/, '{"time":""')).toBe(
      `{"time":"","level":"info","msg":"made ${REDACTED}","route":"/mcp/:token",` +
        `"status":200,"durationMs":1.5,"component":"at ${REDACTED}","userId":"${REDACTED}",` +
        `"header":"${REDACTED}"}\n`,
    );
    expect(JSON.parse(lines[1] ?? '')).toEqual({
      time: expect.any(String),
      level: 'info',
      msg: 'bare',
    });
  });

  it("scrubs infoMade's message on every line, even one kept scrubbed or a secret learnt later", () => {
    const lines: string[] = [];
    const redactor = new Redactor();
    const logger = createLogger({ write: (line) => lines.push(line) }, redactor);
    const later = 'learnt-later-secret';
    const msgs = () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    // Short (kept once scrubbed), token-shaped, and long enough to hold a secret.
    for (const message of ['request', 'a://:x@', `made ${later}`]) {
      logger.infoMade(message, {}, {});
    }
    redactor.addSecret(later);
    for (let i = 0; i < 2; i += 1) {
      for (const message of ['request', 'a://:x@', `made ${later}`]) {
        logger.infoMade(message, {}, {});
      }
    }
    expect(msgs()).toEqual([
      'request',
      `a://:${REDACTED}@`,
      `made ${later}`,
      ...['request', `a://:${REDACTED}@`, `made ${REDACTED}`],
      ...['request', `a://:${REDACTED}@`, `made ${REDACTED}`],
    ]);
  });

  it('scrubs the message and the fields, and keeps its own time, level and message', () => {
    const { logger, parsed } = capture();
    logger.error(`failed with ${secret}`, {
      msg: 'not the message',
      level: 'debug',
      time: 'then',
      password: 'hunter2-password',
      detail: { header: `Bearer ${'a'.repeat(20)}` },
    });
    expect(parsed()[0]).toEqual({
      time: expect.any(String),
      level: 'error',
      msg: `failed with ${REDACTED}`,
      password: REDACTED,
      detail: { header: REDACTED },
    });
  });

  // Issue 30 item 5.
  it('adds the id of the request being handled to every line written meanwhile', async () => {
    const { logger, parsed } = capture();
    await withRequestId('req-1', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.child({ source: 'up' }).warn('in a request');
      logger.info('names its own', { requestId: 'other' });
    });
    logger.info('outside');
    expect(parsed()).toEqual([
      {
        time: expect.any(String),
        level: 'warn',
        msg: 'in a request',
        requestId: 'req-1',
        source: 'up',
      },
      { time: expect.any(String), level: 'info', msg: 'names its own', requestId: 'other' },
      { time: expect.any(String), level: 'info', msg: 'outside' },
    ]);
  });

  it("adds a child logger's fields to each of its lines, the line's own fields last", () => {
    const { logger, parsed } = capture();
    const child = logger.child({ tool: 'demo.echo.say', executionId: 'e1' });
    child.info('tool log', { executionId: 'e2', note: 'hi' });
    child.info('no fields');
    expect(parsed()).toEqual([
      {
        time: expect.any(String),
        level: 'info',
        msg: 'tool log',
        tool: 'demo.echo.say',
        executionId: 'e2',
        note: 'hi',
      },
      {
        time: expect.any(String),
        level: 'info',
        msg: 'no fields',
        tool: 'demo.echo.say',
        executionId: 'e1',
      },
    ]);
  });
});

describe('isoNow', () => {
  it("is Date's own ISO text at every millisecond, across seconds, years and before 1970", () => {
    const instants = [
      Date.UTC(2026, 10, 29, 18, 4, 5, 0),
      Date.UTC(2026, 10, 29, 18, 4, 5, 7),
      Date.UTC(2026, 10, 29, 18, 4, 5, 42),
      Date.UTC(2026, 10, 29, 18, 4, 5, 999),
      Date.UTC(2026, 10, 29, 18, 4, 6, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 0),
      Date.UTC(1969, 11, 31, 23, 59, 59, 998),
      Date.UTC(10_000, 0, 1, 0, 0, 0, 5),
      Date.UTC(2026, 10, 29, 18, 4, 5, 42),
    ];
    for (const at of instants) expect(isoNow(at)).toBe(new Date(at).toISOString());
  });
});

describe('batchedSink', () => {
  it('writes the lines of a turn at its end, then gathers those that follow a write, in order', async () => {
    const writes: string[] = [];
    const sink = batchedSink((text) => writes.push(text), 60_000);
    sink.write('a\n');
    sink.write('b\n');
    expect(writes).toEqual([]);
    // After a quiet spell, the turn's lines go out as it ends: no timer wakes the process later.
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\n']);

    // Within the window that write opened, lines wait for others.
    sink.write('c\n');
    await new Promise((resolve) => setImmediate(resolve));
    sink.write('d\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\n']);
    sink.flush();
    expect(writes).toEqual(['a\nb\n', 'c\nd\n']);
  });

  it('writes the gathered lines when the window ends', async () => {
    const writes: string[] = [];
    const sink = batchedSink((text) => writes.push(text), 5);
    sink.write('a\n');
    await vi.waitFor(() => expect(writes).toEqual(['a\n']));
    sink.write('b\n');
    sink.write('c\n');
    await vi.waitFor(() => expect(writes).toEqual(['a\n', 'b\nc\n']));
  });

  it('writes at once when the gathered text grows large', () => {
    const writes: string[] = [];
    const sink = batchedSink((text) => writes.push(text), 60_000);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) sink.write(line);
    expect(writes).toEqual([line.repeat(64)]);
    sink.write('after\n');
    sink.flush();
    expect(writes).toEqual([line.repeat(64), 'after\n']);
  });

  it('writes what is gathered when flushed, as it is when the process exits', () => {
    const writes: string[] = [];
    const sink = batchedSink((text) => writes.push(text));
    sink.write('last words\n');
    sink.flush();
    expect(writes).toEqual(['last words\n']);
    sink.flush();
    expect(writes).toEqual(['last words\n']);
  });
});
