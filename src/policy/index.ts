/**
 * Permission policy: rules over tool, side effect and resources, composed
 * conservatively.
 *
 * @module
 */
export { globMatch, globToRegExp } from "./glob.js";
export { allOf, allowAll, rulesPolicy, strictest, type Policy, type PolicyDecision, type PolicyRequest, type PolicyRule } from "./policy.js";
