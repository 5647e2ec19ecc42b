// "Verify an export": an auditor picks a downloaded export and the browser checks its hash chain (verify-chain.ts),
// saying whether it is complete and untampered, or which line breaks it and how.
import { useState } from 'preact/hooks';
import { t } from '../../i18n';
import { verifyExport, type Verdict } from './verify-chain';

export function VerifyExport() {
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const check = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setVerdict(await verifyExport(await file.text()));
  };
  return (
    <section aria-labelledby="verify-title">
      <h2 id="verify-title">{t('auditVerifyTitle')}</h2>
      <p class="note">{t('auditVerifyText')}</p>
      <label>
        {t('auditVerifyFile')}
        <input
          type="file"
          accept=".jsonl,application/x-ndjson"
          onChange={(e) => void check(e.target as HTMLInputElement)}
        />
      </label>
      {verdict?.ok === true && (
        <p role="status" class="ok">
          {t('auditVerifyOk', { count: String(verdict.count), hash: verdict.headHash })}
        </p>
      )}
      {verdict?.ok === false && (
        <p role="alert" class="error">
          {t('auditVerifyBroken', { line: String(verdict.line), reason: t(`auditVerify_${verdict.reason}`) })}
        </p>
      )}
    </section>
  );
}
