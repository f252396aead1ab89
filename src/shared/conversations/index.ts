/** Conversations (DESIGN §16): plan, layout, NIST formats and the metrics of long multi-speaker calls. */
export * from './plan.js';
export * from './layout.js';
export * from './nist.js';
export * from './assignment.js';
export * from './der.js';
export * from './cpwer.js';
export * from './score.js';
export * from './summary.js';
export * from './options.js';
