// Layering of the monorepo, checked by `npm run lint` (and so by CI). One rule per sentence of the design:
// contexts use each other only through their index.ts; kernel imports nothing of ours; libs/ never imports
// projections/, apps/, test/ or bench/; infrastructure never imports a context; an adapter library's index exports
// its port and a factory, never an adapter; a controller reads no store; deciders and events do no I/O; no cycles.
//
// The tree is the layers: libs/core (kernel, eventsourcing, http, integration-events, infrastructure, operations,
// tokenizer, testing) and libs/adapters (a port and its adapters: event-store, read-store, search, blob-store,
// message-bus, key-store, sandbox, model-providers, rate-limit-store) know no domain; libs/contexts own a part of the
// domain (events, deciders, routes, prompt formats): access (who is calling and who may; imports no other context),
// identity (the users context), spaces, agents, knowledge, conversations, memory, skills, code-execution, apps,
// agent-generation, model-gateway, usage, audit. A context adds to core or an adapter by registration (an offline
// responder, a context provider) made by the composition root in apps/.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules form no cycle (a cycle through a barrel breaks ESM initialisation order).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'deciders-and-events-are-pure',
      severity: 'error',
      comment:
        "An aggregate's events and its decider import no store and no adapter: decide and evolve are pure functions " +
        'of their inputs (time and ids come in with the command). Nest is kept out by eslint (npm packages are not ' +
        'in this graph).',
      from: { path: '^libs/[^/]+/[^/]+/src/.*\\.(decider|events)\\.ts$' },
      to: {
        path: '^libs/(adapters/(event-store|read-store|search|blob-store|message-bus|key-store|sandbox|rate-limit-store)|core/infrastructure)/',
      },
    },
    {
      name: 'deciders-and-events-do-no-io',
      severity: 'error',
      comment: 'No file, network, process or clock module in a decider or an event file (hashing is fine).',
      from: { path: '^libs/[^/]+/[^/]+/src/.*\\.(decider|events)\\.ts$' },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|child_process|worker_threads|timers|timers/promises|os|cluster|tls)$',
      },
    },
    {
      name: 'controllers-inject-no-store',
      severity: 'error',
      comment:
        'A controller (of a context, or of an app) turns HTTP into a command or a query and back: it reads no store, ' +
        'no search index and no blob or key store itself (a query handler does).',
      from: { path: '^(libs/[^/]+|apps)/[^/]+/src/.*\\.controller\\.ts$' },
      to: {
        path: '^libs/adapters/(event-store|read-store|search|blob-store|key-store|message-bus|rate-limit-store)/',
      },
    },
    {
      name: 'access-imports-no-context',
      severity: 'error',
      comment:
        'Access (the guard, the policy, the route table) is what every context imports to ask who may: it imports ' +
        'no context itself; the users context answers its Credentials port, the apps context its AppCallers.',
      from: { path: '^libs/contexts/access/' },
      to: {
        path: '^libs/contexts/(?!access/)',
      },
    },
    {
      name: 'libs-not-upward',
      severity: 'error',
      comment:
        'libs/ never imports projections/, apps/, test/ or bench/: read-model contracts live in the contexts.',
      from: { path: '^libs/' },
      to: { path: '^(projections|apps|test|bench)/' },
    },
    {
      name: 'kernel-imports-nothing-of-ours',
      severity: 'error',
      comment: 'The kernel is the bottom layer.',
      from: { path: '^libs/core/kernel/' },
      to: { path: '^(libs/(?!core/kernel/)|projections/|apps/)' },
    },
    {
      name: 'infrastructure-imports-no-context',
      severity: 'error',
      comment:
        'Infrastructure libs never import a context (specs included): a context registers what it adds ' +
        '(its offline responder, its prompt format) through the composition root in apps/.',
      from: {
        path: '^libs/(adapters|core)/',
      },
      to: {
        path: '^libs/contexts/',
      },
    },
    {
      name: 'contexts-through-index',
      severity: 'error',
      comment: "A context uses another only through that context's index.ts (its public face).",
      from: {
        path: '^libs/[^/]+/([^/]+)/',
        pathNot: ['\\.(spec|contract)\\.ts$', '^libs/core/testing/'],
      },
      // Two libraries have a second face, for code worker threads run (.dependency-cruiser-threads.cjs): the kernel's
      // thread kit and the model providers' offline kit, which load none of their index's graph.
      to: {
        path: '^libs/',
        pathNot: [
          '^libs/[^/]+/$1/',
          '^libs/[^/]+/[^/]+/src/index\\.ts$',
          '^libs/core/kernel/src/thread-kit\\.ts$',
          '^libs/adapters/model-providers/src/offline-kit\\.ts$',
        ],
      },
    },
    {
      name: 'adapter-libs-export-ports-and-factories',
      severity: 'error',
      comment:
        "An adapter library's index.ts (what contexts and the infrastructure module import) exports its port and a " +
        'factory that picks the adapter from configuration, never an adapter class. The composition root (apps/), ' +
        'specs, libs/core/testing and bench import an adapter by its path (#event-store/sqlite/sqlite-event-store).',
      from: {
        path: '^libs/[^/]+/(event-store|read-store|search|blob-store|message-bus|key-store|sandbox|model-providers|rate-limit-store)/src/index\\.ts$',
      },
      to: {
        path: '^libs/[^/]+/$1/src/((sqlite|mongodb|kurrentdb|elasticsearch|fs|kafka|bubblewrap|docker|openai|in-process)/|offline/offline-provider\\.ts$)',
      },
    },
    {
      name: 'tests-reach-libs-only-through-their-packages',
      severity: 'error',
      comment:
        'Specs in one lib may use another lib (adapters included) but never projections/, apps/ or bench/.',
      from: { path: '^libs/.*\\.(spec|contract)\\.ts$' },
      to: { path: '^(apps|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@agent-platform/source', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
    moduleSystems: ['es6'],
  },
};
