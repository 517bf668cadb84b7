import { describe, expect, it } from 'vitest';
import { batchedSink } from './logger.js';

describe('batchedSink', () => {
  it('writes the lines of one turn of the event loop at once, in order, after the turn', async () => {
    const writes: string[] = [];
    const sink = batchedSink((text) => writes.push(text));
    sink.write('a\n');
    sink.write('b\n');
    sink.write('c\n');
    expect(writes).toEqual([]);

    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\nc\n']);

    sink.write('d\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
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
