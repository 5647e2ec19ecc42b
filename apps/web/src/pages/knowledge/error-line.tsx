// A refusal or failure shown beside what caused it. It keeps the label, not the text, so the sentence follows a change
// of language.
import { t, type Label } from '../../i18n';

export function ErrorLine({ label }: { label: Label | null }) {
  return label ? (
    <p role="alert" class="error">
      {t(label)}
    </p>
  ) : null;
}
