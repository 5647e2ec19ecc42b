// A Space's fields as a person fills them in (name, slug, description, colour), with the slug checked as they type:
// its shape (the API's pattern) and whether a Space they can see already uses it. Used to create and to edit.
import { t, type Label } from '../../i18n';

export interface SpaceDraft {
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly color: string;
}

export const DEFAULT_COLOR = '#1e88e5';
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The API's default slug of a name ("Research & Development!" → "research-development"), repeated here because the
 * web app takes no server code; the page shows it before the API would derive it. */
export const slugify = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);

/** What is wrong with a slug, or null. */
export const slugProblem = (slug: string, taken: ReadonlySet<string>): Label | null =>
  slug === ''
    ? null // the field is required: the browser asks for it
    : slug.length > 80 || !SLUG.test(slug)
      ? 'slugShape'
      : taken.has(slug)
        ? 'spaceSlugTaken'
        : null;

export function SpaceFields({
  draft,
  onChange,
  taken,
  errors,
  locked = false,
}: {
  draft: SpaceDraft;
  onChange: (draft: SpaceDraft) => void;
  /** Slugs of the other Spaces the person can see. */
  taken: ReadonlySet<string>;
  /** Sentences from the API about a field. */
  errors: { name?: string | null; slug?: string | null };
  /** A personal Space keeps its name and slug. */
  locked?: boolean;
}) {
  const problem = slugProblem(draft.slug, taken);
  const slugNote =
    errors.slug ?? (problem ? t(problem) : draft.slug ? t('slugFine', { slug: draft.slug }) : t('slugHint'));
  const set = (field: keyof SpaceDraft) => (event: Event) =>
    onChange({ ...draft, [field]: (event.target as HTMLInputElement).value });
  return (
    <>
      <label>
        {t('name')}
        <input
          name="name"
          required
          maxLength={120}
          readOnly={locked}
          value={draft.name}
          aria-invalid={errors.name ? 'true' : undefined}
          aria-describedby={errors.name ? 'space-name-error' : undefined}
          onInput={set('name')}
        />
      </label>
      {errors.name && (
        <p id="space-name-error" role="alert" class="error">
          {errors.name}
        </p>
      )}
      <label>
        {t('slug')}
        <input
          name="slug"
          required
          maxLength={80}
          readOnly={locked}
          value={draft.slug}
          aria-invalid={problem || errors.slug ? 'true' : undefined}
          aria-describedby="space-slug-note"
          onInput={set('slug')}
        />
      </label>
      <p id="space-slug-note" aria-live="polite" class={problem || errors.slug ? 'error' : 'note'}>
        {locked ? t('personalSpaceLocked') : slugNote}
      </p>
      <label>
        {t('description')}
        <textarea
          name="description"
          maxLength={2000}
          rows={3}
          value={draft.description}
          onInput={set('description')}
        />
      </label>
      <label class="colour">
        {t('colour')}
        <input name="color" type="color" value={draft.color} onInput={set('color')} />
      </label>
    </>
  );
}
