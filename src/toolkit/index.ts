/**
 * isoagent/toolkit: first-party tools for the places isoagent runs, where
 * there is no shell: a workspace of files (read_file, write_file,
 * edit_file, apply_patch, list_files, search_files over a Workspace port),
 * the network (http_fetch, to allowed hosts), and the run's own controls
 * (task_complete, ask_user). Each tool's contract is documented in
 * docs/tools/.
 *
 * @module
 */
export { memoryWorkspace, type Workspace, type WorkspaceChange, type WorkspaceFile, type WorkspaceReceipt } from "./workspace.js";
export { DEFAULT_ROOT, resolveFilePath, resolvePath } from "./paths.js";
export { workspaceTools, LIST_MAX_FILES, SEARCH_DEFAULT_RESULTS, SEARCH_MAX_BYTES, SEARCH_MAX_RESULTS, type WorkspaceToolsOptions } from "./files.js";
export { parsePatch, planPatch, type FilePatch } from "./patch.js";
export { httpFetchTool, hostAllowed, type HttpFetchOptions } from "./fetch.js";
export { htmlToText, decodeEntities } from "./html.js";
export { ARTIFACT_READ_MAX_BYTES, askUserTool, readArtifactTool, taskCompleteTool } from "./control.js";
export { CONFUSABLES, fenceUntrusted, MARKER_REMOVED, neutralizeMarkers, untrustedMarker, type UntrustedMarker } from "./untrusted.js";
export { FILE_MAX_BYTES, LINE_MAX_CHARS, TEXT_MAX_BYTES, TEXT_MAX_LINES } from "./text.js";
