/**
 * The error contract's text (the reference's error texts), written once:
 * what went wrong, the safe next step, and when to stop instead. Every
 * model-facing refusal and failure (the gate's, a tool's, the MCP server's)
 * is built with it.
 */

/** The contract's last two lines: the safe next step, and when to stop. */
export const contractTail = (next: string, recovery: string): string => `\n[Next: ${next}]\n[Recovery: ${recovery}]`;

/** An error-contract text: `Error: <summary>`, `[Next: …]`, `[Recovery: …]`, one per line. */
export const contract = (summary: string, next: string, recovery: string): string => `Error: ${summary}${contractTail(next, recovery)}`;
