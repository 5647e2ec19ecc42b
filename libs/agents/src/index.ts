export * from './agents.module.js';
export * from './accessible-agent.js';
export * from './agent-move-checks.js';
export * from './agent.events.js';
export * from './agents.read-model.js';
export * from './personal-agent.process.js';
export * from './space-deletion.process.js';
export { agentAsOf } from './queries/get-agent/get-agent.query.js';
export { AgentDto, toAgentDto } from './queries/get-agent/agent.dto.js';
