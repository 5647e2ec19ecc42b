// The light and dark themes: the system's choice (prefers-color-scheme) until the person picks one with the toggle,
// which this browser then remembers (localStorage). The theme is `data-theme` on <html>; styles.css gives each
// theme its colours as custom properties.
import { useEffect, useState } from 'preact/hooks';
import { t } from './i18n';

type Theme = 'light' | 'dark';
const STORED = 'agent-platform.theme';
const systemDark = matchMedia('(prefers-color-scheme: dark)');

function chosen(): Theme | null {
  try {
    const value = localStorage.getItem(STORED);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null; // storage blocked: the system decides
  }
}

const current = (): Theme => chosen() ?? (systemDark.matches ? 'dark' : 'light');
const apply = () => (document.documentElement.dataset.theme = current());

apply();
systemDark.addEventListener('change', apply);

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(current);
  useEffect(() => {
    const follow = () => setTheme(current());
    systemDark.addEventListener('change', follow);
    return () => systemDark.removeEventListener('change', follow);
  }, []);
  const toggle = () => {
    const next: Theme = theme === 'dark' ? 'light' : 'dark';
    try {
      localStorage.setItem(STORED, next);
    } catch {
      // storage blocked: the choice lasts until the page is left
    }
    document.documentElement.dataset.theme = next;
    setTheme(next);
  };
  return (
    <button type="button" class="theme-toggle" aria-pressed={theme === 'dark'} onClick={toggle}>
      {t('darkTheme')}
    </button>
  );
}
