// A Space's edit form for its owners (and admins): only the fields that changed are sent; a personal Space keeps its
// name and slug.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { directoryChanged, type List } from '../../state';
import { buildError, SPACE_OWNER_REFUSALS, spaceFieldOf, useLoaded, type SpaceDetails } from './build-kit';
import { slugProblem, SpaceFields, type SpaceDraft } from './space-fields';

export function SpaceEdit({
  space,
  onSaved,
}: {
  space: SpaceDetails;
  onSaved: (space: SpaceDetails) => void;
}) {
  const [spaces] = useLoaded<List<SpaceDetails>>('spaces?limit=200');
  const [draft, setDraft] = useState<SpaceDraft>(space);
  const [errors, setErrors] = useState<{ name?: string | null; slug?: string | null; form?: string | null }>(
    {},
  );
  const [saved, setSaved] = useState(false);
  const taken = new Set((spaces?.data ?? []).filter((s) => s.id !== space.id).map((s) => s.slug));
  const fields = ['name', 'slug', 'description', 'color'] as const;
  const changed = Object.fromEntries(fields.filter((f) => draft[f] !== space[f]).map((f) => [f, draft[f]]));
  const save = async (event: Event) => {
    event.preventDefault();
    if (slugProblem(draft.slug, taken) || Object.keys(changed).length === 0) return;
    try {
      const next = await api<SpaceDetails>('PATCH', `spaces/${encodeURIComponent(space.id)}`, changed);
      setDraft(next);
      onSaved(next);
      setSaved(true);
      directoryChanged();
    } catch (failure) {
      setErrors({ [spaceFieldOf(failure) ?? 'form']: buildError(failure, SPACE_OWNER_REFUSALS) });
    }
  };
  return (
    <form class="space-form" onSubmit={(e) => void save(e)}>
      <SpaceFields
        draft={draft}
        onChange={(next) => {
          setDraft(next);
          setErrors({});
          setSaved(false);
        }}
        taken={taken}
        errors={errors}
        locked={Boolean(space.isPersonal)}
      />
      <button type="submit" disabled={Object.keys(changed).length === 0}>
        {t('save')}
      </button>
      {saved && (
        <p role="status" class="note">
          {t('saved')}
        </p>
      )}
      {errors.form && (
        <p role="alert" class="error">
          {errors.form}
        </p>
      )}
    </form>
  );
}
