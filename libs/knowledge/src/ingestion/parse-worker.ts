// The entry of the worker threads parses run in (started by `parse.ts`). A one-shot worker parses the bytes it was
// started with, posts the document or the failure back, and ends; a pooled worker (`workerData.pooled`) parses each
// request it is sent, one at a time, and stays for the next. Its heap is capped by the worker's resource limits, and
// the parent terminates it when a time limit passes, so no document can hang or exhaust the service.
import { parentPort, workerData } from 'node:worker_threads';
import { toIngestionError } from './ingestion-error.js';
import { parseInThisThread, type ParseReply, type ParseRequest } from './parse-core.js';

const answer = async ({ bytes, kind, limits }: ParseRequest): Promise<ParseReply> => {
  try {
    return { ok: true, document: await parseInThisThread(bytes, kind, limits) };
  } catch (error) {
    const failure = toIngestionError(error);
    return { ok: false, reason: failure.reason, message: failure.message };
  }
};

if ((workerData as { pooled?: boolean } | null)?.pooled) {
  parentPort?.on('message', (request: ParseRequest) => {
    void answer(request).then((reply) => parentPort?.postMessage(reply));
  });
} else {
  parentPort?.postMessage(await answer(workerData as ParseRequest));
}
