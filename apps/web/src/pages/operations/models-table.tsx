// The models the instance has configured (GET /models, admins): kind, provider, security tier, where it runs, and
// its price per million tokens (or that the subscription covers it).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { errorSentence } from '../../errors';
import { t } from '../../i18n';
import { TIERS, type ModelInfo } from '../model-info';

export function ModelsTable() {
  const [models, setModels] = useState<readonly ModelInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api<{ data: ModelInfo[] }>('GET', 'models').then(
      (answer) => setModels(answer.data),
      (failure: unknown) => setError(errorSentence(failure)),
    );
  }, []);
  return (
    <section aria-labelledby="models-title">
      <h2 id="models-title">{t('opsModels')}</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {models && (
        <table class="models cards">
          <thead>
            <tr>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('opsKind')}</th>
              <th scope="col">{t('opsProvider')}</th>
              <th scope="col">{t('opsTier')}</th>
              <th scope="col">{t('opsPrice')}</th>
            </tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={m.key}>
                <th scope="row">
                  {m.displayName} <code>{m.key}</code>
                </th>
                <td data-label={t('opsKind')}>{m.kind}</td>
                <td data-label={t('opsProvider')}>{m.provider}</td>
                <td data-label={t('opsTier')}>
                  <span class={`badge tier-${m.securityTier}`}>{t(TIERS[m.securityTier])}</span>{' '}
                  {m.locationLabel}
                </td>
                <td data-label={t('opsPrice')}>
                  {m.includedUsage
                    ? t('opsIncluded')
                    : t('opsPriceValue', {
                        input: m.pricing.input.toFixed(2),
                        output: m.pricing.output.toFixed(2),
                      })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
