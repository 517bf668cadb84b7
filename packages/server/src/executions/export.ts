import type { GatewayDatabase } from '../db/index.js';
import type { ExecutionFilters } from './filters.js';
import { type ExecutionListItem, pageRows, toListItem } from './store.js';

/** The formats of `GET /api/executions/export`. */
export type ExportFormat = 'jsonl' | 'csv';

const BATCH = 500;

const CSV_COLUMNS = [
  'id',
  'startedAt',
  'userId',
  'toolPath',
  'outcome',
  'durationMs',
  'approval',
  'approvedBy',
  'endpointId',
  'clientId',
  'error',
  'arguments',
] as const;

/**
 * One CSV cell, quoted, and defused for spreadsheets: a cell that a spreadsheet would read as a
 * formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`
 * (OWASP "CSV injection").
 *
 * @example
 * csvCell('=HYPERLINK("x")'); // "'=HYPERLINK(""x"")" quoted
 */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : typeof value === 'number'
          ? String(value)
          : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replaceAll('"', '""')}"`;
}

function csvLine(item: ExecutionListItem): string {
  return `${CSV_COLUMNS.map((column) => csvCell(item[column])).join(',')}\r\n`;
}

/**
 * Every record matching `filters`, newest first, as JSON Lines or CSV, read in keyset batches so
 * memory stays flat however many there are; stops reading when the reader goes away.
 *
 * @example
 * return new Response(exportStream(database, filters, 'csv'), { headers });
 */
export function exportStream(
  database: GatewayDatabase,
  filters: ExecutionFilters,
  format: ExportFormat,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: { startedAt: string; id: string } | undefined;
  let header = format === 'csv';
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (header) {
        header = false;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(',')}\r\n`));
        return;
      }
      if (done) {
        controller.close();
        return;
      }
      const rows = await pageRows(database, filters, BATCH, cursor);
      const last = rows.at(-1);
      if (rows.length < BATCH || last === undefined) done = true;
      else cursor = { startedAt: last.started_at, id: last.id };
      if (rows.length === 0) {
        controller.close();
        return;
      }
      const text = rows
        .map(toListItem)
        .map((item) => (format === 'csv' ? csvLine(item) : `${JSON.stringify(item)}\n`))
        .join('');
      controller.enqueue(encoder.encode(text));
    },
  });
}
