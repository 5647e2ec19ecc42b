// A tag as a coloured chip: its own colour behind a text colour chosen to stay readable on it; with a remove button
// when the person may detach it.
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
