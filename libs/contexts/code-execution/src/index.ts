export * from './code-execution.module.js';
export * from './sandbox.events.js';
export * from './sandbox.read-model.js';
export { SandboxLifecycleProcess } from './sandbox-lifecycle.process.js';
export { sandboxRoot } from './code-execution.module.js';
export { sandboxBlobReferences } from './sandbox-blob-references.js';
export * from './code-prompt.js';
export { codeOfflineResponder, OFFLINE_CODE_PREFIX } from './offline/code-responder.js';
