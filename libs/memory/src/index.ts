export * from './memory.module.js';
export * from './memory.events.js';
export * from './memory-proposal.events.js';
export * from './memory.read-model.js';
export { MemoryErasureProcess } from './memory-erasure.process.js';
export { AgentMemoriesDeletionProcess } from './agent-memories-deletion.process.js';
export { MemoryProposalProcess } from './memory-proposal.process.js';
