// What the offline chat model's responders (each context's, registered by apps/offline/offline-responders.ts) take
// from this library, without its index: the offline pool's worker threads import the responders before their first
// task, and the index would load every provider and the kernel's index into each of them (measured: 17 MB more of the
// api's resident memory for such a thread). The same modules the index exports.
export * from './offline/offline-responder.js';
export * from './offline/words.js';
export { textOf } from './native/chat-parts.js';
