// The worker's side of a RequestThread: each request answered with what `answer` returns, or refused with the message
// of what it throws; told to close, `close` runs (it releases what the thread holds) and the thread ends.
import { parentPort } from 'node:worker_threads';

export function answerRequests<Request, Reply>(answer: (request: Request) => Reply, close: () => void): void {
  type Message = { id: number; request: Request } | { close: true };
  parentPort?.on('message', (message: Message) => {
    if ('close' in message) {
      close();
      parentPort?.close();
      return;
    }
    try {
      parentPort?.postMessage({ id: message.id, ok: true, reply: answer(message.request) });
    } catch (error) {
      parentPort?.postMessage({
        id: message.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  });
}
