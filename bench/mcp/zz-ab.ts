// scratch: gateway CPU per call, v1 client vs raw fetch session client, alternating batches
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { httpSession } from './sessions.js';
const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url));
const tsconfig = fileURLToPath(new URL('./tsx-paths.json', import.meta.url));
const child = fork(serverScript, ['gateway'], { execArgv: ['--import', 'tsx'], env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const started = await new Promise<{ url: string; token: string }>((r) => child.once('message', (m: any) => r(m.started)));
const url = new URL('/mcp', started.url);
const cpu = () => { const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10000; };
const v1 = await httpSession(url, started.token);
// raw client
const h = { authorization: `Bearer ${started.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = await fetch(url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
await init.text();
const sid = init.headers.get('mcp-session-id')!;
const rh = { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
await (await fetch(url, { method: 'POST', headers: rh, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
let n = 1;
const raw = async () => { const r = await fetch(url, { method: 'POST', headers: rh, body: JSON.stringify({ jsonrpc: '2.0', id: n++, method: 'tools/call', params: { name: 'bench.echo.say', arguments: { text: 'hi' } } }) }); await r.text(); };
const viaV1 = async () => { await v1.client.callTool({ name: 'bench.echo.say', arguments: { text: 'hi' } }); };
const N = Number(process.env.N ?? 1000);
for (let i = 0; i < 500; i++) { await raw(); await viaV1(); }
const res: Record<string, number[]> = { raw: [], v1: [] };
for (let round = 0; round < Number(process.env.ROUNDS ?? 4); round++) {
  for (const [name, f] of Object.entries({ raw, v1: viaV1 })) {
    const c0 = cpu(); for (let i = 0; i < N; i++) await f(); res[name]!.push((cpu() - c0) / N);
  }
}
console.log(JSON.stringify(res));
await v1.close(); child.kill();
process.exit(0);
