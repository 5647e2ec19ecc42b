export * from './spaces.module.js';
export * from './space-visibility.js';
export * from './space.decider.js';
export * from './space.events.js';
export * from './spaces.read-model.js';
export * from './space-membership.js';
export * from './space.integration-events.js';
export * from './space-creation.js';
export { spaceAsOf } from './queries/get-space/get-space.query.js';
