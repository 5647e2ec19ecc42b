export * from './agent-generation.module.js';
export { GenerateText } from './commands/generate-text/generate-text.command.js';
export { GenerateTextBody, TextResultDto } from './llm.schemas.js';
export { rejectInstructionRoles } from './chat-request.js';
