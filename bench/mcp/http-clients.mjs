// One kept-alive HTTP/1.1 JSON exchange of the Gateway's upstream hop, client side only, made N
// times in a row: undici's Pool.dispatch with a handler gathering the body (as
// packages/server/src/upstream/http-exchange.ts), the same on undici's Milo parser, or node:http
// with a keep-alive Agent (issue 37, README.md `fedhop37`). The server runs in a child process, so
// `valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null node
// bench/mcp/http-clients.mjs undici 5000` counts the client alone; a request's instructions are the
// difference between two such runs (5,000 and 2,000 requests) over 3,000.
// Usage: node bench/mcp/http-clients.mjs undici|milo|http N
import { fork } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';

// The server package's undici, the one the Gateway's upstream hop uses.
const { Pool } = createRequire(new URL('../../packages/server/package.json', import.meta.url))(
  'undici',
);

if (process.argv[2] === 'server') {
  const answer = JSON.stringify({
    jsonrpc: '2.0',
    id: 'gw-1',
    result: {
      content: [{ type: 'text', text: 'x'.repeat(100) }],
      structuredContent: { text: 'x'.repeat(100) },
    },
  });
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send(server.address().port));
} else {
  const [mode, n] = [process.argv[2], Number(process.argv[3])];
  const child = fork(new URL(import.meta.url).pathname, ['server']);
  const port = await new Promise((r) => child.once('message', r));
  const origin = `http://127.0.0.1:${port}`;
  // The request the Gateway sends for the bench's echo call: its connection's `_meta` envelope.
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'gateway', version: '0.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {
      sampling: {},
      elicitation: { form: {}, url: {} },
    },
  };
  const params = { name: 'say', arguments: { text: 'hello' }, _meta: envelope };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'gw-1', method: 'tools/call', params });
  const headers = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'say',
  };
  let one;
  if (mode === 'http') {
    const agent = new http.Agent({ keepAlive: true });
    one = () =>
      new Promise((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers, agent },
          (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode,
                type: res.headers['content-type'],
                text: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString(),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
  } else {
    const pool = new Pool(origin, mode === 'milo' ? { useMilo: true } : {});
    one = () =>
      new Promise((resolve, reject) => {
        const chunks = [];
        let status = 0;
        let type;
        pool.dispatch(
          { origin, path: '/mcp', method: 'POST', headers, body },
          {
            onRequestStart() {},
            onResponseStart(_c, s, h) {
              status = s;
              type = h['content-type'];
            },
            onResponseData(_c, chunk) {
              chunks.push(chunk);
            },
            onResponseEnd() {
              resolve({
                status,
                type,
                text: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString(),
              });
            },
            onResponseError(_c, e) {
              reject(e);
            },
          },
        );
      });
  }
  for (let i = 0; i < n; i++) {
    const a = await one();
    if (a.status !== 200 || JSON.parse(a.text).jsonrpc !== '2.0') throw new Error('bad answer');
  }
  child.kill();
  process.exit(0);
}
