// Operations for admins: the instance's health with its projections (position, lag, a rebuild's progress, read live)
// and the models it has configured.
import { t } from '../i18n';
import { ModelsTable } from './operations/models-table';
import { ProjectionsTable } from './operations/projections-table';

export function Operations() {
  return (
    <section class="page" aria-labelledby="operations-title">
      <h1 id="operations-title">{t('operations')}</h1>
      <ProjectionsTable />
      <ModelsTable />
    </section>
  );
}
