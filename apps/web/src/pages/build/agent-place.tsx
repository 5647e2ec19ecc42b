// Moving an Agent to another Space (the API also asks for the right to change the target Space) and deleting it
// after a confirmation in a modal dialog (native <dialog>: focus stays inside, Escape closes).
import { useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../../api';
import { t } from '../../i18n';
import { navigate } from '../../router';
import { directoryChanged, type List } from '../../state';
import { buildError, useLoaded, type AgentDetails, type SpaceDetails } from './build-kit';

export function AgentPlace({
  agent,
  onMoved,
}: {
  agent: AgentDetails;
  onMoved: (agent: AgentDetails) => void;
}) {
  const [spaces] = useLoaded<List<SpaceDetails>>('spaces?limit=200');
  const targets = (spaces?.data ?? []).filter((s) => !s.isPersonal && s.id !== agent.spaceId);
  const [target, setTarget] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [moved, setMoved] = useState<string | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const id = encodeURIComponent(agent.id);
  const move = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const next = await api<AgentDetails>('PUT', `agents/${id}`, { spaceId: target });
      setMoved(t('agentMoved', { name: targets.find((s) => s.id === target)?.name ?? '' }));
      directoryChanged();
      onMoved(next);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 403 ? t('refusedMove') : buildError(failure),
      );
    }
  };
  const remove = async () => {
    try {
      await api('DELETE', `agents/${id}`);
      dialog.current?.close();
      directoryChanged();
      navigate(agent.spaceId ? `/space/${agent.spaceId}/settings` : '/');
    } catch (failure) {
      setError(buildError(failure));
      dialog.current?.close();
    }
  };
  return (
    <section aria-labelledby="agent-place-title">
      <h2 id="agent-place-title">{t('moveOrDelete')}</h2>
      {!agent.isPersonal && (
        <form class="inline-form" onSubmit={(e) => void move(e)}>
          <label>
            {t('moveToSpace')}
            <select
              required
              value={target}
              onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}
            >
              <option value="">{t('chooseSpace')}</option>
              {targets.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">{t('move')}</button>
        </form>
      )}
      {moved && (
        <p role="status" class="note">
          {moved}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        {t('deleteAgentNamed', { name: agent.name })}
      </button>
      <dialog ref={dialog} class="confirm-dialog" aria-labelledby="agent-delete-title">
        <h2 id="agent-delete-title">{t('deleteAgentNamed', { name: agent.name })}</h2>
        <p>{t('deleteAgentRemoves')}</p>
        <p>{t('cannotUndo')}</p>
        <div class="dialog-actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            {t('cancel')}
          </button>
          <button type="button" class="danger" onClick={() => void remove()}>
            {t('deleteForever')}
          </button>
        </div>
      </dialog>
    </section>
  );
}
