// The tools a stored answer called, as its provenance records them (GET …/messages/{id}/provenance: each call's name,
// arguments — null once erased — and outcome). Asked once per answer while the page is open: an answer's provenance
// never changes, and the windowed list mounts a row again each time it scrolls back into view.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import type { ToolCallShown } from './tool-calls';

const known = new Map<string, Promise<readonly ToolCallShown[]>>();

function callsOf(route: string): Promise<readonly ToolCallShown[]> {
  let calls = known.get(route);
  if (!calls) {
    calls = api<{ toolCalls: readonly ToolCallShown[] }>('GET', route).then(
      (provenance) => provenance.toolCalls,
      () => {
        // Incognito answers keep no provenance, a deleted one has none: nothing to show, and asked again later.
        known.delete(route);
        return [];
      },
    );
    known.set(route, calls);
  }
  return calls;
}

/** `route`: the answer's provenance route, null while it is not stored (its calls are the streamed ones then). */
export function useStoredToolCalls(route: string | null): readonly ToolCallShown[] {
  const [calls, setCalls] = useState<readonly ToolCallShown[]>([]);
  useEffect(() => {
    if (!route) return setCalls([]);
    let current = true;
    void callsOf(route).then((found) => current && setCalls(found));
    return () => {
      current = false;
    };
  }, [route]);
  return calls;
}
