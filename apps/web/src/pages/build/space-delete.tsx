// Deleting a Space: a modal dialog (native <dialog>: focus stays inside, Escape closes) that says what goes with it
// (its Agents by name, their Knowledge, conversations and memories, its prompts and members) and deletes only once the
// person has typed the Space's name.
import { useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { navigate } from '../../router';
import { directoryChanged } from '../../state';
import { buildError, SPACE_OWNER_REFUSALS, type AgentDetails, type SpaceDetails } from './build-kit';

export function DeleteSpace({ space, agents }: { space: SpaceDetails; agents: readonly AgentDetails[] }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);
  const remove = async (event: Event) => {
    event.preventDefault();
    if (typed !== space.name) return;
    try {
      await api('DELETE', `spaces/${encodeURIComponent(space.id)}`);
      dialog.current?.close();
      directoryChanged();
      navigate('/');
    } catch (failure) {
      setError(buildError(failure, SPACE_OWNER_REFUSALS));
    }
  };
  return (
    <section aria-labelledby="space-delete-title">
      <h2 id="space-delete-title">{t('deleteSpace')}</h2>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        {t('deleteSpaceNamed', { name: space.name })}
      </button>
      <dialog
        ref={dialog}
        class="confirm-dialog"
        aria-labelledby="space-delete-dialog-title"
        onClose={() => {
          setTyped('');
          setError(null);
        }}
      >
        <form onSubmit={(e) => void remove(e)}>
          <h2 id="space-delete-dialog-title">{t('deleteSpaceNamed', { name: space.name })}</h2>
          <p>{t('deleteSpaceRemoves', { count: String(agents.length) })}</p>
          {agents.length > 0 && (
            <ul>
              {agents.map((agent) => (
                <li key={agent.id}>{agent.name}</li>
              ))}
            </ul>
          )}
          <p>{t('cannotUndo')}</p>
          <label>
            {t('typeNameToConfirm', { name: space.name })}
            <input
              value={typed}
              autoComplete="off"
              onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
            />
          </label>
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <div class="dialog-actions">
            <button type="button" onClick={() => dialog.current?.close()}>
              {t('cancel')}
            </button>
            <button type="submit" class="danger" disabled={typed !== space.name}>
              {t('deleteForever')}
            </button>
          </div>
        </form>
      </dialog>
    </section>
  );
}
