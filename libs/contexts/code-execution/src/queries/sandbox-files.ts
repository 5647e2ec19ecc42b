// The files a call kept, opened: the second shape of CodeRan seals their list with the run's key (null once the
// key is destroyed: the run was erased); the first shape has them in the clear.
import type { ContentCipher } from '#key-store';
import type { ProducedFile } from '../sandbox.events.js';
import type { SandboxCallView } from '../sandbox.read-model.js';

export async function openCallFiles(
  cipher: ContentCipher,
  calls: readonly SandboxCallView[],
): Promise<(readonly ProducedFile[] | null)[]> {
  const opened = await cipher.openMany(calls.map((call) => call.sealedFiles ?? null));
  return calls.map((call, i) => {
    if (call.sealedFiles === undefined) return call.files;
    const json = opened[i];
    return json == null ? null : (JSON.parse(json) as ProducedFile[]);
  });
}
