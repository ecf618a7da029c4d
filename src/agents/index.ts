/**
 * The Agent port and the scripted agent.
 *
 * @module
 */
export { AgentError, type Agent, type AgentContext, type AgentDecision, type AgentProgress, type AgentView, type ExposedTool, type ProposedCall } from "./port.js";
export { call, calls, final, scriptedAgent, type ScriptStep } from "./scripted.js";
