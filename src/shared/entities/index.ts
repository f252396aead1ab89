/** The entity probe's shared rules (DESIGN §12.3): types and validation, the matcher, spoken forms, generation. */
export { ENTITY_TYPES, entityProblem, isEntityType, type Entity, type EntityResult, type EntityType } from './types.js';
export { entityFound, matchEntities } from './match.js';
export { digitsInWords, numberInWords, ordinalInWords, spokenForm, yearInWords } from './spoken.js';
export { ENTITY_PER_TYPE, entitySentences, randomEntityValue, type EntitySentence } from './generate.js';
