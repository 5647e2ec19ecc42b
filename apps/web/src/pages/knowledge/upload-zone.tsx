// Adding documents at one level: a drop zone that is also the file input (several files at once, by drag-and-drop or
// the keyboard); each file uploads on its own and has a row with its progress and outcome, so one refused file (too
// large, empty) says why on its row while the others go on.
import { useState } from 'preact/hooks';
import { t, type Label } from '../../i18n';
import { knowledgeError, knowledgePath, uploadWithProgress, type Scope } from './knowledge-kit';

interface Upload {
  readonly key: number;
  readonly name: string;
  readonly state: 'uploading' | 'done' | 'failed';
  /** The share sent (0 to 1); undefined until the browser can tell. */
  readonly sent?: number;
  readonly error?: Label;
}

let nextKey = 0;

export function UploadZone({
  agentId,
  scope,
  onUploaded,
}: {
  agentId: string;
  scope: Scope;
  onUploaded: () => void;
}) {
  const [uploads, setUploads] = useState<readonly Upload[]>([]);
  const [over, setOver] = useState(false);
  const update = (key: number, change: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));

  const uploadOne = async (file: File, key: number) => {
    const body = new FormData();
    body.append('name', file.name);
    body.append('scope', scope);
    body.append('file', file);
    try {
      await uploadWithProgress(knowledgePath(agentId, 'documents'), body, (sent) => update(key, { sent }));
      update(key, { state: 'done' });
      onUploaded();
    } catch (failure) {
      update(key, { state: 'failed', error: knowledgeError(failure) });
    }
  };
  const start = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const added = [...files].map((file) => ({ file, key: nextKey++ }));
    setUploads((all) => [
      ...all.filter((u) => u.state !== 'done'),
      ...added.map(({ file, key }) => ({ key, name: file.name, state: 'uploading' as const })),
    ]);
    for (const { file, key } of added) void uploadOne(file, key);
  };

  return (
    <div class="kn-upload">
      <label
        class={over ? 'kn-drop over' : 'kn-drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={(e) => {
          // Moving over the zone's own text or input is no leaving.
          if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node | null)) setOver(false);
        }}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          start(e.dataTransfer?.files ?? null);
        }}
      >
        <span>{t('knDropFiles')}</span>
        <input
          type="file"
          multiple
          onChange={(e) => {
            const input = e.target as HTMLInputElement;
            start(input.files);
            input.value = '';
          }}
        />
        <small>{t('knFileTypes')}</small>
      </label>
      {uploads.length > 0 && (
        <ul class="kn-uploads" aria-label={t('knUploads')}>
          {uploads.map((u) => (
            <li key={u.key} class={`kn-upload-row ${u.state}`}>
              <span class="kn-name">{u.name}</span>
              {u.state === 'uploading' && (
                <progress max={1} value={u.sent} aria-label={t('knUploading', { name: u.name })}>
                  {t('knUploadingShort')}
                </progress>
              )}
              {u.state === 'done' && <span class="kn-ok">{t('knUploaded')}</span>}
              {u.state === 'failed' && (
                <span role="alert" class="error">
                  {u.error && t(u.error)}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
