/**
 * Permission policy: rules over tool, side effect and resources, composed
 * conservatively and evaluated fail-closed; seed 002's workspace and path
 * scope primitives.
 *
 * @module
 */
export { globMatch, globToRegExp } from "./glob.js";
export {
  allOf,
  allowAll,
  evaluatePolicy,
  normalizeDecision,
  PolicyError,
  rulesPolicy,
  strictest,
  type Policy,
  type PolicyDecision,
  type PolicyRequest,
  type PolicyRule,
} from "./policy.js";
export { pathScopePolicy, workspacePolicy, type Grant, type PathScope, type PathScopePolicyOptions, type WorkspacePolicyOptions } from "./workspace.js";
