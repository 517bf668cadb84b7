import { describe, expect, it } from 'vitest';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';

function headersFor(method: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(method === 'tools/call' ? { 'mcp-name': 'demo.echo.say' } : {}),
  };
}

/**
 * A 2026-07-28 request written by hand, its capabilities and info as raw JSON text (duplicate
 * keys, `1e400`, escapes survive only there); `extra` adds a `_meta` key, which sends the same
 * request the SDK's way instead of the gateway's direct one.
 */
function requestText(method: string, capabilities: string, info: string, extra = false): string {
  const params = method === 'tools/call' ? '"name":"demo.echo.say","arguments":{"text":"hi"},' : '';
  const meta = [
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28"',
    `"io.modelcontextprotocol/clientInfo":${info}`,
    `"io.modelcontextprotocol/clientCapabilities":${capabilities}`,
    ...(extra ? ['"example.test/probe":true'] : []),
  ].join(',');
  return `{"jsonrpc":"2.0","id":7,"method":"${method}","params":{${params}"_meta":{${meta}}}}`;
}

const INFO = '{"name":"probe","version":"1"}';
const deeply = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('a 2026-07-28 envelope judged once per JSON text (issue 37 review)', () => {
  // Each pair: capabilities and info as sent. The text the gateway keys its verdict on is
  // JSON.stringify of the parsed value, which differs from what was sent for each of these.
  const cases: [string, string, string][] = [
    [
      'a duplicate key, the valid value first',
      '{"roots":{"listChanged":true},"roots":{"listChanged":"yes"}}',
      INFO,
    ],
    [
      'a duplicate key, the invalid value first',
      '{"roots":{"listChanged":"yes"},"roots":{"listChanged":true}}',
      INFO,
    ],
    ['1e400 where a boolean goes', '{"roots":{"listChanged":1e400}}', INFO],
    ['-0 where a boolean goes', '{"roots":{"listChanged":-0}}', INFO],
    [
      'a __proto__ key',
      '{"__proto__":{"listChanged":true},"roots":{}}',
      '{"name":"probe","version":"1","__proto__":{"x":1}}',
    ],
    [
      'unicode escapes in a key',
      '{"r\\u006fots":{"listChanged":true}}',
      '{"n\\u0061me":"probe","version":"1"}',
    ],
    ['a lone surrogate', '{"experimental":{"\\ud800":{}}}', '{"name":"\\udfff","version":"1"}'],
    [
      'another key order',
      '{"sampling":{},"roots":{"listChanged":false}}',
      '{"version":"1","name":"probe"}',
    ],
  ];

  it.each(cases)(
    'is answered as the SDK answers it, never 5xx: %s',
    async (_case, capabilities, info) => {
      const gw = await startMcpGateway();
      const admin = await gw.user({ admin: true });
      const post = async (method: string, text: string) => {
        const response = await fetch(`${gw.url}/mcp`, {
          method: 'POST',
          headers: { ...headersFor(method), authorization: `Bearer ${admin.mcpToken}` },
          body: text,
        });
        const body = await response.text();
        // Execution ids differ by call; nothing else does.
        return `${response.status} ${body.replace(/[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g, '(id)')}`;
      };
      for (const method of ['tools/call', 'tools/list']) {
        // Twice: the second time, a kept verdict answers.
        for (let i = 0; i < 2; i += 1) {
          const direct = await post(method, requestText(method, capabilities, info));
          const sdk = await post(method, requestText(method, capabilities, info, true));
          expect(direct, method).not.toMatch(/^5/);
          expect(direct, method).toBe(sdk);
        }
      }
    },
  );
});

describe('a client message nested too deep for the checks after the parse (issue 37 review)', () => {
  it('is refused (400) past 100 levels, where the stack overflowed (500)', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const post = (method: string, text: string) =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { ...headersFor(method), authorization: `Bearer ${admin.mcpToken}` },
        body: text,
      });
    const refusal = {
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'Invalid Request: the message nests objects or arrays more than 100 levels deep',
      },
      id: null,
    };
    // Deep enough to overflow JSON.stringify and the spec's schema checks, inside 1 MiB.
    const overflowing: [string, string][] = [
      [`{"experimental":{"x":${deeply(100_000)}}}`, INFO],
      ['{}', `{"name":"probe","version":"1","x":${deeply(100_000)}}`],
    ];
    for (const method of ['tools/call', 'tools/list']) {
      for (const [capabilities, info] of overflowing) {
        for (const extra of [false, true]) {
          const response = await post(method, requestText(method, capabilities, info, extra));
          expect(response.status).toBe(400);
          expect(await response.json()).toEqual(refusal);
        }
      }
    }
    // The body is level 1, its params 2, the arguments 3, and `x` nests the rest.
    const nested = (depth: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.echo.say","arguments":{"text":"hi","x":${deeply(depth - 3)}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`;
    const served = await post('tools/call', nested(100));
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ result: { isError: true } });
    const refused = await post('tools/call', nested(101));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(refusal);
  });

  it('walks a message only when its brackets could nest past 100, and judges it the same', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const post = (text: string) =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: { ...headersFor('tools/call'), authorization: `Bearer ${admin.mcpToken}` },
        body: text,
      });
    // The envelope's own brackets: the body, params, arguments (levels 1-3), _meta and its
    // capabilities: 5; `x` nests below the arguments.
    const call = (args: string) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.echo.say","arguments":{"text":"hi"${args}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`;
    // Exactly 100 brackets: within the bound, not walked, served.
    const atBound = call(`,"x":${deeply(95)}`);
    expect([...atBound].filter((c) => c === '{' || c === '[').length).toBe(100);
    expect((await post(atBound)).status).toBe(200);
    // Many brackets, inside strings and side by side, but shallow: walked and served.
    const shallow = call(`,"s":"${'['.repeat(300)}","xs":[${Array(200).fill('{}').join(',')}]`);
    expect((await post(shallow)).status).toBe(200);
    // 101 levels deep among many brackets: walked and refused.
    const deep = call(`,"xs":[${Array(200).fill('{}').join(',')}],"x":${deeply(98)}`);
    const refused = await post(deep);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: -32600 } });
  });
});
