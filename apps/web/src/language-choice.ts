// The language a person picks: shown at once, remembered by this browser (localStorage, as the theme), and saved to
// their profile when they are signed in. The save is a request of its own: a page reloaded or left before it answers
// (or one whose save failed) would have shown the profile's old language again, so until the profile has the choice,
// this browser keeps it marked as not saved yet for that person, shows it, and sends it again when their profile is
// next read. Signed out, the browser's choice outlasts a reload too (the browser's own language before any choice).
import { api } from './api';
import { setLanguage, type Language } from './i18n';

const STORED = 'agent-platform.language';

interface Choice {
  readonly language: Language;
  /** The person whose profile does not have it yet (their save has not answered, or failed). */
  readonly unsavedFor?: string;
}

const isLanguage = (value: unknown): value is Language => value === 'en' || value === 'de';

function stored(): Choice | null {
  try {
    const value = JSON.parse(localStorage.getItem(STORED) ?? 'null') as Partial<Choice> | null;
    if (!value || !isLanguage(value.language)) return null;
    return typeof value.unsavedFor === 'string'
      ? { language: value.language, unsavedFor: value.unsavedFor }
      : { language: value.language };
  } catch {
    return null; // storage blocked or unreadable: the profile and the browser decide
  }
}

function store(choice: Choice): void {
  try {
    localStorage.setItem(STORED, JSON.stringify(choice));
  } catch {
    // storage blocked: the choice lasts until the page is left (and the profile keeps it once saved)
  }
}

/** The language this browser was last told, before anything is read from the server. */
export const rememberedLanguage = (): Language | null => stored()?.language ?? null;

/** Saves the choice to the person's profile; once it answers, the browser's copy is no longer marked unsaved. */
async function save(language: Language): Promise<void> {
  await api('PATCH', 'users/me', { language });
  // A later choice made meanwhile is left as it is (its own save clears it).
  if (stored()?.language === language) store({ language });
}

/**
 * The person (or, signed out, the browser) chose `next`: the pages turn at once, and a signed-in person's profile is
 * saved (the promise: that save, for a page that shows its outcome).
 */
export function chooseLanguage(next: Language, personId: string | null): Promise<void> {
  setLanguage(next);
  store(personId ? { language: next, unsavedFor: personId } : { language: next });
  return personId ? save(next) : Promise.resolve();
}

/**
 * The signed-in person's language once their profile is read: theirs, unless this browser holds a choice of theirs
 * the profile does not have yet, which is shown and saved again.
 */
export function adoptProfileLanguage(person: { readonly id: string; readonly language?: Language }): void {
  const choice = stored();
  if (choice?.unsavedFor === person.id && choice.language !== person.language) {
    setLanguage(choice.language);
    void save(choice.language).catch(() => undefined);
    return;
  }
  if (!person.language) return;
  setLanguage(person.language);
  store({ language: person.language });
}
