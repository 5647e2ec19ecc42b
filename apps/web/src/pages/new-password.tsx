// The new-password field with its rule (at least 12 characters, as the API checks), wherever a password is chosen:
// a mail's link, one's profile.
import { t } from '../i18n';

export function NewPasswordField({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <>
      <label>
        {t('newPassword')}
        <input
          type="password"
          name="new-password"
          autocomplete="new-password"
          required
          minLength={12}
          maxLength={256}
          aria-describedby="password-hint"
          value={value}
          onInput={(e) => onInput((e.target as HTMLInputElement).value)}
        />
      </label>
      <p id="password-hint" class="note">
        {t('passwordHint')}
      </p>
    </>
  );
}
