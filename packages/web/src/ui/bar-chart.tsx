// A bar chart drawn as SVG, with no chart library (a few hundred bytes against tens of kilobytes). The
// bars stretch to the width they get; the labels under them are HTML, so they stay readable on a phone.
// Its text alternatives: the SVG's accessible name reads every value, and a table holds the same figures.
import { useId } from 'react';

export type Bar = { label: string; /** The label spoken and put in the table, e.g. "March 2026". */ longLabel: string; value: number };

export function BarChart({ title, bars, valueText }: { title: string; bars: Bar[]; valueText: (v: number) => string }) {
  const id = useId();
  const max = Math.max(1, ...bars.map((b) => b.value));
  const summary = `${title}: ${bars.map((b) => `${b.longLabel} ${valueText(b.value)}`).join(', ')}.`;
  return (
    <figure className="bar-chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{title}</figcaption>
      <svg role="img" aria-label={summary} viewBox={`0 0 ${bars.length * 10} 100`} preserveAspectRatio="none" className="bar-chart-bars">
        {bars.map((b, i) => {
          const h = (b.value / max) * 96;
          return <rect key={b.label + i} x={i * 10 + 1.5} width={7} y={100 - h} height={h} rx={0.8} />;
        })}
      </svg>
      <ol className="bar-chart-labels" aria-hidden="true">
        {bars.map((b, i) => (
          <li key={b.label + i}>{b.label}</li>
        ))}
      </ol>
      <details className="bar-chart-table">
        <summary>Show as a table</summary>
        <table>
          <caption className="visually-hidden">{title}</caption>
          <tbody>
            {bars.map((b, i) => (
              <tr key={b.label + i}>
                <th scope="row">{b.longLabel}</th>
                <td>{valueText(b.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
