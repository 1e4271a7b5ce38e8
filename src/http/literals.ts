/**
 * Number literals through the API layer: a schema that validates a reply rebuilds its objects, and
 * the copy must still print every number as the service spelled it (src/io/json.ts). The client
 * reaches io only through http, so the one function it needs is offered here.
 */
export { carryLiterals } from '../io/json.js';
