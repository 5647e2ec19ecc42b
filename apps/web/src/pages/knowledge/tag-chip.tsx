// A tag as a coloured chip: its own colour behind a text colour chosen to stay readable on it; with a remove button
// when the person may detach it. And a choice among tags.
import { t } from '../../i18n';
import { inkOn, type Tag } from './knowledge-kit';

export function TagChip({ tag, onRemove, from }: { tag: Tag; onRemove?: () => void; from?: string }) {
  const ink = inkOn(tag.color);
  return (
    <span class="kn-chip" style={{ background: tag.color, color: ink }}>
      {tag.name}
      {onRemove && (
        <button
          type="button"
          class="kn-chip-remove"
          style={{ color: ink }}
          aria-label={t('knDetachTag', { tag: tag.name, name: from ?? '' })}
          onClick={onRemove}
        >
          ×
        </button>
      )}
    </span>
  );
}

/** A choice among `tags`, the empty value first with `placeholder`; `onPick` gets the tag id chosen. */
export function TagSelect(props: {
  tags: readonly Tag[];
  placeholder: string;
  value: string;
  onPick: (tagId: string) => void;
  id?: string;
  label?: string;
}) {
  return (
    <select
      id={props.id}
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onPick((e.target as HTMLSelectElement).value)}
    >
      <option value="">{props.placeholder}</option>
      {props.tags.map((tag) => (
        <option key={tag.id} value={tag.id}>
          {tag.name}
        </option>
      ))}
    </select>
  );
}
