// A modal question before something that cannot be undone (the native <dialog>: focus stays inside, Escape cancels).
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n';

interface Props {
  readonly title: string;
  readonly text: string;
  readonly confirm: string;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
}

export function ConfirmDialog({ title, text, confirm, onConfirm, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" onClose={onClose}>
      <h2 id="confirm-title">{title}</h2>
      <p>{text}</p>
      <form method="dialog">
        <button type="submit" class="danger" onClick={onConfirm}>
          {confirm}
        </button>{' '}
        <button type="submit" autofocus>
          {t('cancel')}
        </button>
      </form>
    </dialog>
  );
}
