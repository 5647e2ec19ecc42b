// A choice of one among a few, as radio buttons in a fieldset: the usage page's period, the charts' unit.
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
