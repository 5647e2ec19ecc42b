// Where an embed visit is kept between reloads: the page's sessionStorage when the browser lets a framed page use it;
// else (third-party storage blocked) the host page's, through the widget or bubble script (postMessage with the
// host, whose origin frame-ancestors vouched for); else nowhere (a plain iframe then starts afresh).

export interface Kept {
  readonly token: string;
  readonly conversationId: string | null;
  readonly until: number;
}

interface Keeper {
  read(): Promise<Kept | null>;
  write(value: Kept | null): void;
}

function ownStorage(key: string): Storage | null {
  try {
    const storage = window.sessionStorage;
    storage.getItem(key);
    return storage;
  } catch {
    return null;
  }
}

const host = (): string | null => {
  if (window.parent === window) return null;
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  return ancestors?.[0] ?? (document.referrer ? new URL(document.referrer).origin : null);
};

function hostKeeper(agentId: string, origin: string): Keeper {
  return {
    read: () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => done(null), 500);
        const done = (value: Kept | null) => {
          clearTimeout(timer);
          removeEventListener('message', listen);
          resolve(value);
        };
        const listen = (event: MessageEvent) => {
          const data = event.data as { type?: string; agentId?: string; value?: Kept | null };
          if (event.origin === origin && data?.type === 'agent-embed:kept' && data.agentId === agentId)
            done(data.value ?? null);
        };
        addEventListener('message', listen);
        window.parent.postMessage({ type: 'agent-embed:read', agentId }, origin);
      }),
    write: (value) => window.parent.postMessage({ type: 'agent-embed:keep', agentId, value }, origin),
  };
}

function keeper(agentId: string): Keeper {
  const key = `embed:${agentId}`;
  const storage = ownStorage(key);
  if (storage)
    return {
      read: async () => JSON.parse(storage.getItem(key) ?? 'null') as Kept | null,
      write: (value) => (value ? storage.setItem(key, JSON.stringify(value)) : storage.removeItem(key)),
    };
  const origin = host();
  return origin ? hostKeeper(agentId, origin) : { read: async () => null, write: () => undefined };
}

/** The Agent's keeper, whose `kept()` is the visit kept and still valid (else null, and the kept one forgotten). */
export function visitKeeper(agentId: string): Keeper & { kept(): Promise<Kept | null> } {
  const store = keeper(agentId);
  return {
    ...store,
    async kept() {
      try {
        const value = await store.read();
        if (value && typeof value.token === 'string' && value.until > Date.now()) return value;
      } catch {
        // unreadable: start afresh
      }
      store.write(null);
      return null;
    },
  };
}
