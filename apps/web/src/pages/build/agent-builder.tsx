// Everything of an Agent a person builds: its name and model, its system prompt, sampling, switches and publishing in
// one form saved at once (only what changed is sent), the embed snippets, its Apps, and moving or deleting it. Who
// may not manage the Agent (a member of its Space uses it) reads the same settings, disabled, with the reason.
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import { directoryChanged, type Me } from '../../state';
import { useAgentAccess } from './agent-access';
import { AgentApps } from './agent-apps';
import { changesOf, draftOf, type AgentDraft } from './agent-draft';
import { EmbedSnippets } from './agent-embed';
import { Features, Publishing } from './agent-features';
import { ModelChoice } from './agent-model';
import { AgentPlace } from './agent-place';
import { SystemPromptEditor } from './agent-prompt';
import { Sampling } from './agent-sampling';
import { buildError, type AgentDetails } from './build-kit';

export function AgentBuilder({
  agent,
  me,
  onSaved,
}: {
  agent: AgentDetails;
  me: Me;
  onSaved: (agent: AgentDetails) => void;
}) {
  const access = useAgentAccess(agent, me);
  const [draft, setDraft] = useState<AgentDraft>(() => draftOf(agent));
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const set = (change: Partial<AgentDraft>) => {
    setDraft((current) => ({ ...current, ...change }));
    setMessage(null);
  };
  if (access.mayManage === undefined) return <p>{t('loading')}</p>;
  const readOnly = !access.mayManage;
  const changes = changesOf(draftOf(agent), draft);
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const saved = await api<AgentDetails>('PUT', `agents/${encodeURIComponent(agent.id)}`, changes);
      setDraft(draftOf(saved));
      onSaved(saved);
      if ('name' in changes) directoryChanged();
      setMessage({ ok: true, text: t('saved') });
    } catch (failure) {
      setMessage({ ok: false, text: buildError(failure) });
    }
  };
  return (
    <>
      {readOnly && (
        <p id="agent-readonly" class="readonly-reason" role="note">
          {access.reason}
        </p>
      )}
      <form
        class="agent-form"
        onSubmit={(e) => void save(e)}
        aria-describedby={readOnly ? 'agent-readonly' : undefined}
      >
        <fieldset class="agent-fields" disabled={readOnly}>
          <legend class="visually-hidden">{t('agentSettings')}</legend>
          <label>
            {t('name')}
            <input
              name="name"
              required
              maxLength={200}
              value={draft.name}
              onInput={(e) => set({ name: (e.target as HTMLInputElement).value })}
            />
          </label>
          <ModelChoice agentId={agent.id} model={draft.model} onChange={(model) => set({ model })} />
          <SystemPromptEditor
            value={draft.systemPrompt}
            spaceId={agent.spaceId}
            readOnly={readOnly}
            onChange={(systemPrompt) => set({ systemPrompt })}
          />
          <Sampling draft={draft} set={set} />
          <Features draft={draft} set={set} />
          <Publishing draft={draft} set={set} personal={Boolean(agent.isPersonal)} />
        </fieldset>
        {!readOnly && (
          <div class="save-bar">
            <button type="submit" disabled={Object.keys(changes).length === 0}>
              {t('save')}
            </button>
            {message && (
              <p role={message.ok ? 'status' : 'alert'} class={message.ok ? 'note' : 'error'}>
                {message.text}
              </p>
            )}
          </div>
        )}
      </form>
      <EmbedSnippets agent={agent} />
      <AgentApps agentId={agent.id} />
      {!readOnly && (
        <AgentPlace
          agent={agent}
          onMoved={(moved) => {
            onSaved(moved);
            setDraft(draftOf(moved));
          }}
        />
      )}
    </>
  );
}
