/**
 * isoagent/policy: permission policy whole. Rules over tool, side effect
 * and resources, composed conservatively and evaluated fail-closed; seed
 * 002's workspace and path scope primitives with their options; and what a
 * policy author builds with (`evaluatePolicy`, `normalizeDecision`,
 * `strictest`, the glob matcher). An application needs only the policies
 * (`rulesPolicy`, `allOf`, `allowAll`, `workspacePolicy`,
 * `pathScopePolicy`) and the `Policy`, `PolicyRule`, `PolicyRequest` and
 * `PolicyDecision` types, which the root exports.
 *
 * @module
 */
export { compileGlob, globMatch, type GlobMatcher } from "./glob.js";
export { allOf, allowAll, evaluatePolicy, normalizeDecision, PolicyError, rulesPolicy, strictest, type Policy, type PolicyDecision, type PolicyRequest, type PolicyRule } from "./policy.js";
export { pathScopePolicy, workspacePolicy, type Grant, type PathScope, type PathScopePolicyOptions, type WorkspacePolicyOptions } from "./workspace.js";
