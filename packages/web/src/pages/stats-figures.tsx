// Figures as the stats page shows them: a label over a big value, as cards in a grid (a description list,
// so each value is read out with its label).
export function Figures({ items, label }: { items: Array<[string, string]>; label?: string }) {
  return (
    <dl className="figures" aria-label={label}>
      {items.map(([name, value]) => (
        <div key={name} className="card">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
