// The model of an Agent, chosen from the models the Agent may use (GET /llm/{agentId}/models): each with its security
// tier as a badge, where it runs, and its price per million tokens.
import { api } from '../../api';
import { t } from '../../i18n';
import { TIERS, type ModelInfo } from '../model-info';
import { useEffect, useState } from 'preact/hooks';
import { buildError } from './build-kit';

const usd = (value: number) => `$${value.toFixed(2)}`;

export function ModelChoice({
  agentId,
  model,
  onChange,
}: {
  agentId: string;
  model: string;
  onChange: (model: string) => void;
}) {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ models: ModelInfo[] }>('GET', `llm/${encodeURIComponent(agentId)}/models`).then(
      (answer) => setModels(answer.models),
      (failure: unknown) => setError(buildError(failure)),
    );
  }, [agentId]);
  const listed = models ?? [];
  return (
    <fieldset class="model-choice">
      <legend>{t('model')}</legend>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {models === null && !error && <p>{t('loading')}</p>}
      {models !== null && !listed.some((m) => m.key === model) && (
        <p class="note">{t('modelNotAllowed', { model })}</p>
      )}
      {listed.map((m) => (
        <label class="model-option" key={m.key}>
          <input
            type="radio"
            name="model"
            value={m.key}
            checked={m.key === model}
            onChange={() => onChange(m.key)}
          />
          <span class="model-name">{m.displayName || m.key}</span>
          <span class={`badge tier-${m.securityTier}`}>{t(TIERS[m.securityTier])}</span>
          {m.locationLabel && <span class="model-location">{m.locationLabel}</span>}
          <span class="model-price">
            {m.includedUsage
              ? t('priceIncluded')
              : t('pricePerMillion', { input: usd(m.pricing.input), output: usd(m.pricing.output) })}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
