// Consents given and withdrawn per day by purpose, hand-written SVG (a chart library would weigh
// more than the whole page). Each day has two bars side by side, each stacked by purpose: given
// (solid) on the left, withdrawn (hatched) on the right, so the difference never rests on colour
// alone. Every segment has a <title> (hover) and the same numbers are in a table for screen
// readers and anyone who prefers numbers; the SVG itself is one labelled image with a summary.
import { useId } from "react";
import { DataTable, type Column } from "../../ui/index.js";
import { axisTicks, formatDay, type ConsentSeries, type DaySeries } from "./series.js";

/** Purposes get these colour classes in legend order; more purposes than colours reuse them. */
export const PALETTE_SIZE = 8;
const paletteClass = (index: number) => `chart-c${index % PALETTE_SIZE}`;

const WIDTH = 800;
const HEIGHT = 260;
const PAD = { top: 12, right: 8, bottom: 28, left: 40 };
const PLOT_W = WIDTH - PAD.left - PAD.right;
const PLOT_H = HEIGHT - PAD.top - PAD.bottom;

interface Row {
  day: string;
  purpose: string;
  given: number;
  withdrawn: number;
}

export function ConsentChart({ series, caption }: { series: ConsentSeries; caption: string }) {
  const id = useId();
  const hatchId = `${id}-hatch`;
  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  const ticks = axisTicks(series.max);
  const top = ticks[ticks.length - 1] ?? 1;
  const y = (value: number) => PAD.top + PLOT_H - (value / top) * PLOT_H;
  const slot = PLOT_W / Math.max(1, series.days.length);
  // Two bars and a gap per day; a bar is never thinner than a hairline at 90 days.
  const bar = Math.max(1, slot * 0.38);
  // Label about 8 days across the axis whatever the range.
  const labelEvery = Math.max(1, Math.ceil(series.days.length / 8));

  const stack = (day: DaySeries, kind: "given" | "withdrawn", x: number) => {
    let base = 0;
    const counts = day[kind];
    return counts.map((count, i) => {
      if (count === 0) return null;
      const y0 = y(base);
      base += count;
      const y1 = y(base);
      const purpose = series.purposes[i] ?? "";
      const label = `${formatDay(day.day, undefined, true)}, ${purpose}: ${count} ${kind}`;
      return (
        <g key={`${kind}-${purpose}`} className={paletteClass(i)}>
          <title>{label}</title>
          <rect className="chart-bar" x={x} y={y1} width={bar} height={Math.max(0, y0 - y1)} />
          {kind === "withdrawn" ? (
            <rect x={x} y={y1} width={bar} height={Math.max(0, y0 - y1)} fill={`url(#${hatchId})`} />
          ) : null}
        </g>
      );
    });
  };

  const rows: Row[] = [];
  for (const day of series.days)
    series.purposes.forEach((purpose, i) => {
      const given = day.given[i] ?? 0;
      const withdrawn = day.withdrawn[i] ?? 0;
      if (given || withdrawn) rows.push({ day: day.day, purpose, given, withdrawn });
    });
  const columns: Column<Row>[] = [
    { key: "day", header: "Day", render: (r) => formatDay(r.day, undefined, true), rowHeader: true },
    { key: "purpose", header: "Purpose", render: (r) => r.purpose },
    { key: "given", header: "Given", render: (r) => r.given, align: "end" },
    { key: "withdrawn", header: "Withdrawn", render: (r) => r.withdrawn, align: "end" },
  ];

  return (
    <figure className="chart">
      <ul className="chart-legend" aria-label="Legend">
        {series.purposes.map((purpose, i) => (
          <li key={purpose}>
            <span className={`chart-swatch ${paletteClass(i)}`} aria-hidden="true" />
            {purpose}
          </li>
        ))}
        <li>
          <span className="chart-swatch chart-swatch-given" aria-hidden="true" />
          Left bar: given
        </li>
        <li>
          <span className="chart-swatch chart-swatch-withdrawn" aria-hidden="true" />
          Right bar (hatched): withdrawn
        </li>
      </ul>
      {/* Focusable so a keyboard can scroll the chart sideways on a narrow screen. */}
      <div className="chart-scroll" tabIndex={0} role="region" aria-label={`${caption} (chart)`}>
        <svg
          className="chart-svg"
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="img"
          aria-labelledby={titleId}
          aria-describedby={descId}
          data-testid="consent-chart"
        >
          <title id={titleId}>{caption}</title>
          <desc id={descId}>
            {`${series.totalGiven} given and ${series.totalWithdrawn} withdrawn over ${series.days.length} days` +
              (series.purposes.length ? `, for ${series.purposes.join(", ")}.` : ".") +
              " The table below the chart lists the same numbers."}
          </desc>
          <defs>
            <pattern
              id={hatchId}
              width="6"
              height="6"
              patternUnits="userSpaceOnUse"
              patternTransform="rotate(45)"
            >
              <rect width="6" height="6" className="chart-hatch-bg" />
              <line x1="0" y1="0" x2="0" y2="6" className="chart-hatch-line" />
            </pattern>
          </defs>
          {ticks.map((tick) => (
            <g key={tick} className="chart-grid" aria-hidden="true">
              <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} />
              <text x={PAD.left - 6} y={y(tick)} dy="0.32em" textAnchor="end">
                {tick}
              </text>
            </g>
          ))}
          {series.days.map((day, i) => {
            const x = PAD.left + i * slot + (slot - 2 * bar) / 2;
            return (
              <g key={day.day}>
                {stack(day, "given", x)}
                {stack(day, "withdrawn", x + bar)}
                {i % labelEvery === 0 ? (
                  <text
                    className="chart-axis-label"
                    x={PAD.left + i * slot + slot / 2}
                    y={HEIGHT - 8}
                    textAnchor="middle"
                    aria-hidden="true"
                  >
                    {formatDay(day.day)}
                  </text>
                ) : null}
              </g>
            );
          })}
          <line
            className="chart-axis"
            x1={PAD.left}
            x2={WIDTH - PAD.right}
            y1={PAD.top + PLOT_H}
            y2={PAD.top + PLOT_H}
            aria-hidden="true"
          />
        </svg>
      </div>
      <details className="chart-table">
        <summary>Show the numbers as a table</summary>
        <DataTable
          caption={`${caption}, by day and purpose`}
          columns={columns}
          rows={rows}
          rowKey={(r) => `${r.day}/${r.purpose}`}
        />
      </details>
    </figure>
  );
}
