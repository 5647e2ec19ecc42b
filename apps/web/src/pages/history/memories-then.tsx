// The Agent's shared memories at the chosen moment (for its managers: what everyone's answers could draw on then),
// each at its version then; a memory whose text was erased since says so.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { t } from '../../i18n';
import type { List } from '../../state';

interface Memory {
  readonly id: string;
  readonly text: string | null;
  readonly erased?: boolean;
  readonly bucket: 'personal' | 'shared';
  readonly version?: number;
}

export function MemoriesThen({ agentId, asOf }: { agentId: string; asOf: string }) {
  const [then, setThen] = useState<readonly Memory[] | null>(null);
  useEffect(() => {
    setThen(null);
    void api<List<Memory>>(
      'GET',
      `memory/${encodeURIComponent(agentId)}/memories?bucket=shared&asOf=${encodeURIComponent(asOf)}`,
    ).then(
      (list) => setThen(list.data.filter((memory) => memory.bucket === 'shared')),
      () => setThen(null),
    );
  }, [agentId, asOf]);
  if (!then) return null;
  return (
    <section aria-labelledby="memories-then-title">
      <h2 id="memories-then-title">{t('historySharedMemories')}</h2>
      {then.length === 0 ? (
        <p>{t('historyNoMemories')}</p>
      ) : (
        <ul>
          {then.map((memory) => (
            <li key={memory.id}>
              {memory.erased || memory.text === null ? <em>{t('auditErased')}</em> : memory.text}
              {memory.version !== undefined && (
                <span class="note"> ({t('historyVersion', { number: String(memory.version) })})</span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
