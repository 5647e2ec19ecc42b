// The name a model sees an App's tool under: `<appId>__<toolName>`, kept to what every chat API accepts
// (`[A-Za-z0-9_-]{1,64}`). Other characters become `_`; a longer name keeps its start and ends with a hash of the
// whole, so two tools never share a name and the same tool always has the same one.
import { createHash } from 'node:crypto';

export const APP_TOOL_SEPARATOR = '__';
const MAX = 64;
const HASH = 8;

/** An App tool's name as a model sees it. */
export function appToolName(appId: string, toolName: string): string {
  const whole = `${appId}${APP_TOOL_SEPARATOR}${toolName}`;
  const safe = whole.replace(/[^A-Za-z0-9_-]/g, '_');
  if (safe.length <= MAX && safe === whole) return safe;
  const hash = createHash('sha256').update(whole).digest('hex').slice(0, HASH);
  return `${safe.slice(0, MAX - HASH - 1)}_${hash}`;
}

/** Whether a tool name is an App's (an App id, then the separator): the offline model calls those only when told. */
export const isAppToolName = (name: string): boolean => /^app_[A-Za-z0-9]+__./.test(name);
