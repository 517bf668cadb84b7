import type { Io } from './io.js';

/**
 * Prints `rows` as columns under `headers`, two spaces apart, the last column unpadded.
 *
 * @example
 * printTable(io, ['ID', 'NAME'], [['a1', 'laptop']]);
 */
export function printTable(
  io: Io,
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): void {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  io.stdout.write(`${line(headers)}\n`);
  for (const row of rows) io.stdout.write(`${line(row)}\n`);
}

/** Prints `value` as the only thing on stdout, for `--json`. */
export function printJson(io: Io, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
