// `/spaces/new`: a person creates a shared Space (name, slug checked as they type, description, colour) and lands on
// its page. The slug follows the name until they edit it themselves.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { navigate } from '../../router';
import { directoryChanged, type List } from '../../state';
import { buildError, spaceFieldOf, useLoaded, type SpaceDetails } from './build-kit';
import { DEFAULT_COLOR, slugify, slugProblem, SpaceFields, type SpaceDraft } from './space-fields';

export function NewSpace() {
  const [spaces] = useLoaded<List<SpaceDetails>>('spaces?limit=200');
  const [draft, setDraft] = useState<SpaceDraft>({
    name: '',
    slug: '',
    description: '',
    color: DEFAULT_COLOR,
  });
  const [slugEdited, setSlugEdited] = useState(false);
  const [errors, setErrors] = useState<{ name?: string | null; slug?: string | null; form?: string | null }>(
    {},
  );
  const [busy, setBusy] = useState(false);
  const taken = new Set((spaces?.data ?? []).map((s) => s.slug));
  const change = (next: SpaceDraft) => {
    const slugChanged = next.slug !== draft.slug;
    if (slugChanged) setSlugEdited(true);
    setDraft(slugChanged || slugEdited ? next : { ...next, slug: slugify(next.name) });
    setErrors({});
  };
  const create = async (event: Event) => {
    event.preventDefault();
    if (slugProblem(draft.slug, taken)) return;
    setBusy(true);
    try {
      const space = await api<SpaceDetails>('POST', 'spaces', draft);
      directoryChanged();
      navigate(`/space/${space.id}/settings`);
    } catch (failure) {
      const field = spaceFieldOf(failure);
      setErrors({ [field ?? 'form']: buildError(failure) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="page build" aria-labelledby="new-space-title">
      <h1 id="new-space-title">{t('newSpace')}</h1>
      <form class="space-form" onSubmit={(e) => void create(e)}>
        <SpaceFields draft={draft} onChange={change} taken={taken} errors={errors} />
        <button type="submit" disabled={busy}>
          {t('createSpace')}
        </button>
        {errors.form && (
          <p role="alert" class="error">
            {errors.form}
          </p>
        )}
      </form>
    </section>
  );
}
