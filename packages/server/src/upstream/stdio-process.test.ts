/**
 * Issue 37: `StdioProcess.call` writes its request line itself (not through `send`), made in one
 * template: the process must read the same JSON-RPC request `serializeMessage` would have written,
 * and a call to a process that is not running must fail at once, as before.
 */
import { serializeMessage } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stopOf } from './abort-signals.js';
import { StdioProcess } from './stdio-process.js';

// Answers each request line with the line it read, as its result's `line`.
const ECHO_LINES = `
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, end + 1);
    buffer = buffer.slice(end + 1);
    const { id } = JSON.parse(line);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: { line } }) + '\\n');
  }
});
`;

// Answers each request line with its place among the lines read; exits, when its stdin ends, with
// the number of lines it read.
const COUNT_LINES = `
let buffer = '';
let read = 0;
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const { id } = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    read += 1;
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result: { read } }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(read));
`;

async function started(script = ECHO_LINES): Promise<StdioProcess> {
  const process_ = new StdioProcess({
    command: process.execPath,
    args: ['-e', script],
    env: {},
    maxBufferSize: 1 << 20,
  });
  await process_.start();
  onTestFinished(() => process_.close());
  return process_;
}

describe('StdioProcess.call (issue 37)', () => {
  it('writes the request line serializeMessage would write, arguments escaped', async () => {
    const upstream = await started();
    const params = { name: 'say', arguments: { text: 'a "quoted"\nline \u2028 é' } };
    const answers = await Promise.all([
      upstream.call('tools/call', params, stopOf(new AbortController().signal)),
      upstream.call(
        'tools/call',
        { name: 'other', arguments: {} },
        stopOf(new AbortController().signal),
      ),
    ]);
    expect(answers.map((answer) => ('result' in answer ? answer.result.line : undefined))).toEqual([
      serializeMessage({ jsonrpc: '2.0', id: 'gw-1', method: 'tools/call', params }),
      serializeMessage({
        jsonrpc: '2.0',
        id: 'gw-2',
        method: 'tools/call',
        params: { name: 'other', arguments: {} },
      }),
    ]);
  });

  it('fails a call at once when the process is not running', async () => {
    const upstream = await started();
    await upstream.close();
    await expect(
      upstream.call('tools/call', { name: 'say' }, stopOf(new AbortController().signal)),
    ).rejects.toThrow('the upstream process is not running');
  });

  // stdio38: a turn's call lines are joined and written at the turn's end, not corked.
  it('writes a message sent in the same turn after the calls before it', async () => {
    const upstream = await started(COUNT_LINES);
    const heard: unknown[] = [];
    upstream.onmessage = (message) => heard.push(message);
    const calls = [1, 2].map(() =>
      upstream.call('tools/call', { name: 'say' }, stopOf(new AbortController().signal)),
    );
    await upstream.send({ jsonrpc: '2.0', id: 'sent', method: 'ping' });
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => ('result' in answer ? answer.result.read : undefined))).toEqual([
      1, 2,
    ]);
    await expect.poll(() => heard).toEqual([{ jsonrpc: '2.0', id: 'sent', result: { read: 3 } }]);
  });

  it('writes the lines of calls made in the turn it is closed in before ending stdin', async () => {
    const upstream = await started(COUNT_LINES);
    const call = upstream.call('tools/call', { name: 'say' }, stopOf(new AbortController().signal));
    call.catch(() => {});
    await upstream.close();
    expect(upstream.reason()).toBe('exited with code 1');
  });
});
