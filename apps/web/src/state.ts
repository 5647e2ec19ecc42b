// What the app knows about the person signed in, and hooks to re-render on a language or route change.
import { useEffect, useReducer } from 'preact/hooks';
import { onLanguageChange } from './i18n';
import { onRouteChange } from './router';

export interface Me {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: 'admin' | 'member';
  readonly language?: 'de' | 'en';
  /** false: signs in only through a provider (no password to change). */
  readonly hasPassword?: boolean;
}

export interface Space {
  readonly id: string;
  readonly name: string;
  /** Its user's private personal Space (never shared: no members page). */
  readonly isPersonal?: boolean;
}

export interface Agent {
  readonly id: string;
  readonly name: string;
  readonly spaceId: string | null;
  readonly isPersonal?: boolean;
  readonly isPublic?: boolean;
  readonly allowedUrls?: readonly string[];
  readonly embedSessionMinutes?: number;
  readonly embedWindowTitle?: string;
  readonly includeAiSummary?: boolean;
  readonly codeExecutionEnabled?: boolean;
}

export interface List<T> {
  readonly data: T[];
  readonly nextCursor?: string | null;
}

/** Re-renders the calling component when the language or the route changes. */
export function useRerender(): void {
  const [, bump] = useReducer((n: number, _: number) => n + 1, 0);
  useEffect(() => {
    const offLanguage = onLanguageChange(() => bump(1));
    const offRoute = onRouteChange(() => bump(1));
    return () => {
      offLanguage();
      offRoute();
    };
  }, []);
}

// Build: pages that create, change or delete a Space or an Agent tell the navigation, which reloads its lists.
const directoryListeners = new Set<() => void>();

export const directoryChanged = (): void => {
  for (const listener of directoryListeners) listener();
};

export const onDirectoryChange = (listener: () => void): (() => void) => {
  directoryListeners.add(listener);
  return () => directoryListeners.delete(listener);
};
