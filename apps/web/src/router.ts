// A tiny history router: the path is the state; links call navigate() instead of reloading the page.
const listeners = new Set<() => void>();

export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

export const onRouteChange = (listener: () => void): (() => void) => {
  listeners.add(listener);
  const popped = () => listener();
  addEventListener('popstate', popped);
  return () => {
    listeners.delete(listener);
    removeEventListener('popstate', popped);
  };
};

/** The params of `pattern` (`/space/:spaceId/agent/:agentId`) in `path`, or null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(have[i]!);
    else if (segment !== have[i]) return null;
  }
  return params;
}

/** Click handler of an in-app link: navigates without a reload (modified clicks keep the browser's behaviour). */
export function linkTo(path: string) {
  return (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(path);
  };
}
