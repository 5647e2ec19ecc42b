// "‹ 2 / 3 ›" under a turn whose question was edited or asked again: each version is a branch of the conversation
// kept on the server; choosing one continues the conversation from it.
import { t } from '../../i18n';
import type { Siblings } from './types';

export function BranchSwitch({
  siblings,
  onSwitch,
}: {
  siblings: Siblings;
  /** Switches to the version with this id (its question). */
  onSwitch: (messageId: string) => void;
}) {
  const { ids, index } = siblings;
  const go = (to: number) => {
    const id = ids[to];
    if (id) onSwitch(id);
  };
  return (
    <span class="branch-switch" role="group" aria-label={t('turnVersions')}>
      <button
        type="button"
        aria-label={t('previousVersion')}
        disabled={index === 0}
        onClick={() => go(index - 1)}
      >
        ‹
      </button>
      <span>{t('versionOf', { n: String(index + 1), count: String(ids.length) })}</span>
      <button
        type="button"
        aria-label={t('nextVersion')}
        disabled={index === ids.length - 1}
        onClick={() => go(index + 1)}
      >
        ›
      </button>
    </span>
  );
}
