export * from './skills.module.js';
export * from './skill.events.js';
export * from './skills.read-model.js';
