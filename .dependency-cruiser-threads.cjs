// The worker threads' module graphs, checked by `npm run lint:layers` beside the layers (.dependency-cruiser.cjs). A
// thread loads what its entry imports at run time and nothing else, so each thread's entry reaches no barrel (an
// index.ts) but the tokenizer's (a small library whose index is the library): a barrel brings its whole module graph
// into the thread (the kernel's index: 12–13 MB more of the api's resident memory for each thread, and start-up time
// a first turn waits for; the model providers' index: 17 MB). Thread code takes the kernel through its thread kit
// (`#kernel/thread-kit`) and the offline responders' helpers through `#model-providers/offline-kit`. Only run-time
// imports count here (type-only imports are erased): the layering rules, which read those too, are the other file's.
// The layers' options (resolution, exclusions): dependency-cruiser reads CommonJS configuration files.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { options } = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'threads-load-no-barrel',
      severity: 'error',
      comment:
        "A worker thread's entry, the offline chat model's responders (the offline pool's threads import them before " +
        'their first task) and the modules `runPooled` sends that pool reach no index.ts at run time, except the ' +
        "tokenizer's.",
      from: {
        path: [
          '\\.worker\\.ts$',
          '^libs/adapters/model-providers/src/offline/offline-worker\\.ts$',
          '^apps/offline/offline-responders\\.ts$',
          // What `runPooled` hands the offline pool's threads.
          '^libs/contexts/conversations/src/compaction/history-work\\.ts$',
        ],
        pathNot: ['^libs/contexts/knowledge/src/(ingestion|summary/summary-index)\\.worker\\.ts$'],
      },
      to: {
        path: '/src/index\\.ts$',
        pathNot: '^libs/core/tokenizer/src/index\\.ts$',
        reachable: true,
      },
    },
  ],
  options: { ...options, tsPreCompilationDeps: false, moduleSystems: ['es6', 'cjs'] },
};
