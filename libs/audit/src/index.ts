export * from './audit.module.js';
export * from './audit-trail.js';
export * from './audit-fold.js';
export * from './audit-actions.js';
export * from './hash-chain.js';
export * from './queries/get-audit/get-audit.schema.js';
export * from './provenance/provenance.read-model.js';
export * from './queries/get-provenance/get-provenance.schema.js';
