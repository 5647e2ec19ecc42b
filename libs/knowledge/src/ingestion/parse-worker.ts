// The entry of the worker thread a parse runs in (started by `parse.ts`): parse the bytes it was given, post the
// document or the failure back, and end. Its heap is capped by the worker's resource limits, and the parent
// terminates it when the time limit passes, so no document can hang or exhaust the service.
import { parentPort, workerData } from 'node:worker_threads';
import { toIngestionError } from './ingestion-error.js';
import { parseInThisThread, type ParseReply, type ParseRequest } from './parse-core.js';

const { bytes, kind, limits } = workerData as ParseRequest;
let reply: ParseReply;
try {
  reply = { ok: true, document: await parseInThisThread(bytes, kind, limits) };
} catch (error) {
  const failure = toIngestionError(error);
  reply = { ok: false, reason: failure.reason, message: failure.message };
}
parentPort?.postMessage(reply);
