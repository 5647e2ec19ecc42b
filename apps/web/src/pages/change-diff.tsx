// One field's change as a reader follows it: text as a word diff (removed words struck through, added ones marked; a
// long text line by line), other values as their JSON before → after (a first value alone); sealed or erased
// content says so.
import { diffLines, diffWords, type ChangeObject } from 'diff';
import { t } from '../i18n';

const LONG = 240;

function Value({ value }: { value: unknown }) {
  if (value === 'sealed') return <em>{t('auditSealed')}</em>;
  if (value === 'erased') return <em>{t('auditErased')}</em>;
  if (value === null || value === undefined) return <em>{t('auditNone')}</em>;
  return <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>;
}

function Parts({ parts }: { parts: readonly ChangeObject<string>[] }) {
  return (
    <span class="diff">
      {parts.map((part, index) =>
        part.added ? (
          <ins key={index}>
            <span class="visually-hidden">{t('auditAdded')} </span>
            {part.value}
          </ins>
        ) : part.removed ? (
          <del key={index}>
            <span class="visually-hidden">{t('auditRemoved')} </span>
            {part.value}
          </del>
        ) : (
          <span key={index}>{part.value}</span>
        ),
      )}
    </span>
  );
}

export function ChangeDiff({ field, before, after }: { field: string; before: unknown; after: unknown }) {
  const texts = typeof before === 'string' && typeof after === 'string';
  const marked = before === 'sealed' || before === 'erased' || after === 'sealed' || after === 'erased';
  return (
    <li>
      <strong>{field}</strong>:{' '}
      {texts && !marked ? (
        <Parts
          parts={
            before.length + after.length > LONG || before.includes('\n') || after.includes('\n')
              ? diffLines(before, after)
              : diffWords(before, after)
          }
        />
      ) : before === null || before === undefined ? (
        <Value value={after} />
      ) : (
        <>
          <Value value={before} /> → <Value value={after} />
        </>
      )}
    </li>
  );
}
