// The entry of the child processes documents are prepared in (started by `parse.ts`): it answers each request it is
// sent over the IPC channel, one at a time (parse bytes of a known kind, or prepare a stored document: sniff its type,
// decode, parse and chunk it), and ends with its parent. Everything heavy a hostile file can make happen runs here,
// where the parent bounds the whole process's memory, CPU and wall time, never in the api.
import { registerHooks } from 'node:module';
import { answer, type ChildRequest } from './parse-core.js';

// pdf.js loads @napi-rs/canvas in Node to draw pages; text extraction draws nothing. Its allocator (mimalloc) reserves
// a 1 GiB writable arena when it loads, which counts against the child's kernel data limit: after one PDF, a child had
// ≈150 MiB of its budget left, and a document well within the limit failed `too_large` (V8 could not commit its heap).
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === '@napi-rs/canvas')
      throw Object.assign(new Error('pages are not drawn in the parse child'), { code: 'MODULE_NOT_FOUND' });
    return next(specifier, context);
  },
});

process.on('disconnect', () => process.exit(0));
process.on('message', (request: ChildRequest) => {
  void answer(request).then((reply) => process.send?.(reply));
});
