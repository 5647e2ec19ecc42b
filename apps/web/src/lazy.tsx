// Pages loaded on first use: their code is a chunk of its own that the chat page's JavaScript does not carry (the
// budget counts what index.html loads). `lazy(() => import('./pages/x'), 'X')` is a component that renders
// "Loading…" until the chunk is there, then the page with the same props.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { errorSentence } from './errors';
import { t } from './i18n';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a component of any props; the caller's stay typed
type AnyComponent = ComponentType<any>;

export function lazy<M extends Record<K, AnyComponent>, K extends keyof M & string>(
  load: () => Promise<M>,
  name: K,
): M[K] {
  type Props = Record<string, unknown>;
  let loaded: ComponentType<Props> | null = null;
  let loading: Promise<ComponentType<Props>> | null = null;
  const get = () => (loading ??= load().then((module) => (loaded = module[name] as ComponentType<Props>)));
  function Lazy(props: Props) {
    const [page, setPage] = useState<ComponentType<Props> | null>(() => loaded);
    const [failed, setFailed] = useState<unknown>(null);
    useEffect(() => {
      if (page) return;
      get().then(
        (component) => setPage(() => component),
        (error: unknown) => {
          loading = null;
          setFailed(error);
        },
      );
    }, []);
    if (failed)
      return (
        <p role="alert" class="error page">
          {errorSentence(failed)}
        </p>
      );
    const Page = page;
    return Page ? <Page {...props} /> : <p class="page">{t('loading')}</p>;
  }
  return Lazy as M[K];
}
