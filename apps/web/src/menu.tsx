// The navigation's menu on narrow screens (styles.css hides the navigation's content below 60rem until it is open):
// a button that opens and closes it; Esc or following a link closes it, and Esc gives the focus back to the button.
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from './i18n';
import { onRouteChange } from './router';

export function useMenu() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => onRouteChange(() => setOpen(false)), []);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  const toggle = (
    <button
      ref={button}
      type="button"
      class="menu-button"
      aria-expanded={open}
      aria-controls="main-nav"
      onClick={() => setOpen(!open)}
    >
      {t('menu')}
    </button>
  );
  return { open, toggle };
}
