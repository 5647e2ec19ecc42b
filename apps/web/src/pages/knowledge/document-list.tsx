// The documents of one level: a row each with its selection box, its status in words (the Failed reason as a
// sentence), its tags as chips (attach and detach when the person may), its details and its download.
import { api, CORE } from '../../api';
import { t } from '../../i18n';
import { knowledgePath, reasonLabel, STATUS_LABELS, type KnowledgeDocument, type Tag } from './knowledge-kit';
import { TagChip, TagSelect } from './tag-chip';

interface Props {
  readonly agentId: string;
  readonly documents: readonly KnowledgeDocument[];
  /** The Agent's tags; null: tags are not shown at this level. */
  readonly tags: readonly Tag[] | null;
  readonly readOnly: boolean;
  readonly selected: ReadonlySet<string>;
  readonly onSelect: (ids: ReadonlySet<string>) => void;
  readonly onDetails: (document: KnowledgeDocument) => void;
  readonly onChanged: () => void;
  readonly onError: (failure: unknown) => void;
}

/** A document's tags as chips (each removable) and a choice of the others to add; nothing when there is neither. */
function RowTags(props: {
  document: KnowledgeDocument;
  tags: readonly Tag[];
  readOnly: boolean;
  onChange: (method: 'POST' | 'DELETE', tagId: string) => void;
}) {
  const { document, readOnly, onChange } = props;
  const attached = props.tags.filter((tag) => document.tags.includes(tag.id));
  const others = readOnly ? [] : props.tags.filter((tag) => !document.tags.includes(tag.id));
  if (attached.length === 0 && others.length === 0) return null;
  return (
    <span class="kn-tags">
      {attached.map((tag) => (
        <TagChip
          key={tag.id}
          tag={tag}
          from={document.name}
          onRemove={readOnly ? undefined : () => onChange('DELETE', tag.id)}
        />
      ))}
      {others.length > 0 && (
        <TagSelect
          label={t('knAttachTo', { name: document.name })}
          tags={others}
          placeholder={t('knAttachTag')}
          value=""
          onPick={(tagId) => onChange('POST', tagId)}
        />
      )}
    </span>
  );
}

export function DocumentList(props: Props) {
  const { agentId, documents, tags, readOnly, selected, onSelect } = props;
  if (documents.length === 0) return <p class="note">{t('knNoDocuments')}</p>;
  const allSelected = documents.every((d) => selected.has(d.id));
  const toggle = (id: string) => {
    const next = new Set(selected);
    if (!next.delete(id)) next.add(id);
    onSelect(next);
  };
  const tagPath = (document: KnowledgeDocument, tagId: string) =>
    knowledgePath(agentId, `documents/${encodeURIComponent(document.id)}/tags/${encodeURIComponent(tagId)}`);
  const changeTag = (method: 'POST' | 'DELETE', document: KnowledgeDocument, tagId: string) =>
    void api(method, tagPath(document, tagId)).then(props.onChanged, props.onError);
  return (
    <div class="kn-documents">
      <label class="check kn-select-all">
        <input
          type="checkbox"
          checked={allSelected}
          onChange={() => onSelect(allSelected ? new Set() : new Set(documents.map((d) => d.id)))}
        />
        {t('knSelectAll')}
      </label>
      <ul class="kn-rows" aria-label={t('knDocuments')}>
        {documents.map((d) => (
          <li key={d.id} class="kn-row" data-status={d.status}>
            <input
              type="checkbox"
              aria-label={t('knSelect', { name: d.name })}
              checked={selected.has(d.id)}
              onChange={() => toggle(d.id)}
            />
            <span class="kn-name">{d.name}</span>
            <span class={`kn-status status ${d.status}`} role="status">
              {t(STATUS_LABELS[d.status])}
            </span>
            {d.status === 'Failed' && d.error && (
              <span class="kn-reason">{t(reasonLabel(d.error.reason))}</span>
            )}
            {tags && (
              <RowTags
                document={d}
                tags={tags}
                readOnly={readOnly}
                onChange={(method, tagId) => changeTag(method, d, tagId)}
              />
            )}
            <span class="kn-actions">
              <button
                type="button"
                onClick={() => props.onDetails(d)}
                aria-label={t('knDetailsOf', { name: d.name })}
              >
                {t('knDetails')}
              </button>
              <a
                class="button"
                href={`${CORE}/${knowledgePath(agentId, `documents/${encodeURIComponent(d.id)}/download`)}`}
                download={d.name}
                aria-label={t('knDownloadOne', { name: d.name })}
              >
                {t('knDownload')}
              </a>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
