export * from './skills.module.js';
export * from './skill.events.js';
export * from './skills.read-model.js';
export { SkillOwnerDeletionProcess } from './skill-owner-deletion.process.js';
export { SkillsSeeder } from './skills-seeder.js';
export { AvailableSkills, type AvailableSkill } from './available-skills.js';
export { skillBlobReferences } from './skill-blob-references.js';
export * from './skills-prompt.js';
export { skillsOfflineResponder } from './offline/skills-responder.js';
