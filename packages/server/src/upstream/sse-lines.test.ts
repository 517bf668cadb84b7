import { describe, expect, it } from 'vitest';
import { type ServerSentEvent, SseParser } from './sse-lines.js';

function parse(chunks: string[], maxBytes = 1000): { events: ServerSentEvent[]; retry?: number } {
  const events: ServerSentEvent[] = [];
  const parser = new SseParser(maxBytes, (event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  return { events, ...(parser.retryMs === undefined ? {} : { retry: parser.retryMs }) };
}

describe('SseParser', () => {
  it('reads events, whatever the line ends and wherever the chunks split', () => {
    const stream =
      'id: 1\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\n: keep-alive\n\ndata:two\rretry: 25\r\r';
    const whole = parse([stream]);
    expect(whole.events).toEqual([
      { event: 'message', data: '{"a":\n1}', id: '1' },
      // A comment alone is no event; the id carries over, as the format says.
      { event: 'message', data: '', id: '1' },
      { event: 'message', data: 'two', id: '1' },
    ]);
    expect(whole.retry).toBe(25);
    for (let at = 1; at < stream.length; at++) {
      expect(parse([stream.slice(0, at), stream.slice(at)]), `split at ${at}`).toEqual(whole);
    }
    expect(parse([...stream])).toEqual(whole);
  });

  it('ignores unknown fields and ids with NUL, and takes a field without a colon', () => {
    const { events } = parse(['foo: bar\nid: a\0b\ndata\n\n']);
    expect(events).toEqual([{ event: 'message', data: '', id: undefined }]);
  });

  it('fails once one event passes the limit, in one chunk or many', () => {
    expect(() => parse([`data: ${'x'.repeat(2000)}\n\n`])).toThrow(RangeError);
    expect(() =>
      parse(Array.from({ length: 30 }, () => 'data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n')),
    ).toThrow('an event over 1000 bytes');
    // Many small events are fine.
    expect(parse(Array.from({ length: 100 }, () => 'data: small\n\n')).events).toHaveLength(100);
  });
});
