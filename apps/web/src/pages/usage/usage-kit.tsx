// Small pieces of the usage pages: a choice of one among a few (radio buttons in a fieldset: the period, the
// charts' unit), and a table of figures (the included and billable totals, a chart's text alternative).
export function Choices<V extends string>({
  legend,
  name,
  options,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  options: readonly { value: V; label: string }[];
  value: V;
  onChange: (value: V) => void;
}) {
  return (
    <fieldset class={`choices ${name}`}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} class="check">
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * A table of figures: a header row (the first column's heading may be for screen readers only) and one row per label,
 * its label a row heading; `empty` stands in for rows when there are none.
 */
export function FigureTable({
  corner,
  hiddenCorner = false,
  columns,
  rows,
  empty,
}: {
  corner: string;
  hiddenCorner?: boolean;
  columns: readonly string[];
  rows: readonly { label: string; cells: readonly string[] }[];
  empty?: string;
}) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">{hiddenCorner ? <span class="visually-hidden">{corner}</span> : corner}</th>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.label}>
            <th scope="row">{row.label}</th>
            {row.cells.map((cell, i) => (
              <td key={i}>{cell}</td>
            ))}
          </tr>
        ))}
        {rows.length === 0 && empty && (
          <tr>
            <td colSpan={columns.length + 1}>{empty}</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
