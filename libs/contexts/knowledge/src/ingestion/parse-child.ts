// The entry of the child processes documents are prepared in (started by `parse.ts`): it answers each request it is
// sent over the IPC channel, one at a time (parse bytes of a known kind, or prepare a stored document: sniff its type,
// decode, parse and chunk it), and ends with its parent. Everything heavy a hostile file can make happen runs here,
// where the parent bounds the whole process's memory, CPU and wall time, never in the api.
import { answer, type ChildRequest } from './parse-core.js';

process.on('disconnect', () => process.exit(0));
process.on('message', (request: ChildRequest) => {
  void answer(request).then((reply) => process.send?.(reply));
});
