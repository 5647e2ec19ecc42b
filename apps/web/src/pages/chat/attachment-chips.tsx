// Attachments as chips: name and size, and (before sending) a button that removes one. The composer shows the files
// about to be sent; a sent question shows what it carried, as the messages route lists it after a reload too.
import { language, t } from '../../i18n';
import type { AttachmentInfo } from './types';

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

/** The size in the page's language: "12 kB", "3.4 MB". */
export function formatSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return new Intl.NumberFormat(language(), {
    style: 'unit',
    unit: UNITS[unit],
    unitDisplay: 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}

export function AttachmentChips({
  attachments,
  onRemove,
}: {
  attachments: readonly AttachmentInfo[];
  /** Present before sending: each chip gets a remove button. */
  onRemove?: (index: number) => void;
}) {
  if (attachments.length === 0) return null;
  return (
    <ul class="chips" aria-label={t('attachments')}>
      {attachments.map((attachment, index) => (
        <li key={`${attachment.name}-${index}`} class="chip">
          <span class="chip-name">{attachment.name}</span>
          <span class="chip-size">{formatSize(attachment.sizeBytes)}</span>
          {onRemove && (
            <button
              type="button"
              class="chip-remove"
              aria-label={t('removeAttachment', { name: attachment.name })}
              onClick={() => onRemove(index)}
            >
              ×
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
