// The fields a person fills in about themself wherever they appear (a mail's link, one's profile): the name others
// see, and a new password with its rule (at least 12 characters, as the API checks).
import { t } from '../i18n';

export function NameField({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <label>
      {t('name')}
      <input
        name="name"
        autocomplete="name"
        required
        maxLength={120}
        value={value}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}

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
