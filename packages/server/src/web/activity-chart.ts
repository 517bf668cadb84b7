import { type Html, html, raw } from './html.js';

/** The outcomes a chart stacks, bottom up, with their legend label and colour class. */
export const CHART_SERIES = [
  { key: 'ok', label: 'OK' },
  { key: 'error', label: 'Error' },
  { key: 'denied', label: 'Denied' },
  { key: 'pending', label: 'Approval pending' },
  { key: 'expired', label: 'Approval expired' },
] as const;

type SeriesKey = (typeof CHART_SERIES)[number]['key'];

/** One bar: a label (an hour) and its counts by outcome. */
export interface ChartBar {
  label: string;
  counts: Record<SeriesKey, number>;
}

const WIDTH = 720;
const HEIGHT = 180;
const LEFT = 40;
const BOTTOM = 22;

function total(bar: ChartBar): number {
  return CHART_SERIES.reduce((sum, series) => sum + bar.counts[series.key], 0);
}

/**
 * A stacked bar chart of calls by outcome, as server-rendered SVG: `role="img"` with a title and
 * a description summing it up, a legend in text, and the same numbers in a table below (in a
 * disclosure), so neither colour nor the picture is the only way to read it. Colours are the
 * stylesheet's (classes `chart-<outcome>`), which meet the 3:1 contrast of graphics.
 *
 * @example
 * activityChart({ id: 'day', title: 'Calls per hour, last 24 hours', bars, tick: 6 });
 */
export function activityChart(options: {
  id: string;
  title: string;
  bars: readonly ChartBar[];
  /** Label every n-th bar on the axis. */
  tick: number;
  /** How a bar's label reads in the axis (default: as is). */
  axisLabel?: (label: string) => string;
}): Html {
  const { id, title, bars, tick } = options;
  const axisLabel = options.axisLabel ?? ((label: string) => label);
  const max = Math.max(1, ...bars.map(total));
  const plotHeight = HEIGHT - BOTTOM - 8;
  const step = (WIDTH - LEFT) / Math.max(1, bars.length);
  const barWidth = Math.max(1, step * 0.8);
  const sums = Object.fromEntries(
    CHART_SERIES.map((series) => [
      series.key,
      bars.reduce((sum, bar) => sum + bar.counts[series.key], 0),
    ]),
  ) as Record<SeriesKey, number>;
  const all = Object.values(sums).reduce((sum, value) => sum + value, 0);
  const busiest = bars.reduce<ChartBar | undefined>(
    (best, bar) => (best === undefined || total(bar) > total(best) ? bar : best),
    undefined,
  );
  const description = `${all} calls: ${CHART_SERIES.map((series) => `${sums[series.key]} ${series.label.toLowerCase()}`).join(', ')}.${
    busiest !== undefined && total(busiest) > 0
      ? ` Busiest: ${axisLabel(busiest.label)} with ${total(busiest)}.`
      : ''
  }`;
  const rects = bars.map((bar, index) => {
    let y = HEIGHT - BOTTOM;
    const x = LEFT + index * step + (step - barWidth) / 2;
    return CHART_SERIES.map((series) => {
      const count = bar.counts[series.key];
      if (count === 0) return '';
      const height = (count / max) * plotHeight;
      y -= height;
      return `<rect class="chart-${series.key}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(0.5, height).toFixed(1)}"><title>${escapeText(`${axisLabel(bar.label)}: ${count} ${series.label.toLowerCase()}`)}</title></rect>`;
    }).join('');
  });
  const ticks = bars
    .map((bar, index) =>
      index % tick === 0
        ? `<text class="chart-axis" x="${(LEFT + index * step).toFixed(1)}" y="${HEIGHT - 6}">${escapeText(axisLabel(bar.label))}</text>`
        : '',
    )
    .join('');
  const svg = `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" preserveAspectRatio="none">
<title id="${id}-title">${escapeText(title)}</title><desc id="${id}-desc">${escapeText(description)}</desc>
<line class="chart-grid" x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}"/>
<text class="chart-axis" x="0" y="14">${max}</text><text class="chart-axis" x="0" y="${HEIGHT - BOTTOM}">0</text>
${rects.join('')}${ticks}</svg>`;
  return html`<figure class="chart-figure" data-chart="${id}">
<figcaption><strong>${title}</strong> <span class="small muted">${description}</span></figcaption>
${raw(svg)}
<ul class="legend" aria-label="Legend">${CHART_SERIES.map(
    (series) =>
      html`<li><span class="swatch chart-${series.key}-bg" aria-hidden="true"></span>${series.label}</li>`,
  )}</ul>
<details><summary class="small">${title} as a table</summary><div class="table-wrap"><table>
<thead><tr><th scope="col">Hour (UTC)</th>${CHART_SERIES.map((series) => html`<th scope="col">${series.label}</th>`)}</tr></thead>
<tbody>${bars
    .filter((bar) => total(bar) > 0)
    .map(
      (bar) =>
        html`<tr><th scope="row">${axisLabel(bar.label)}</th>${CHART_SERIES.map((series) => html`<td>${bar.counts[series.key]}</td>`)}</tr>`,
    )}</tbody></table></div></details>
</figure>`;
}

function escapeText(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
