import { IsoagentError, type IsoagentErrorCode } from "../errors.js";

/** The codes a strict JSON check can refuse with: every `JSON_` code but the serializer's. */
export type JsonErrorCode = Exclude<Extract<IsoagentErrorCode, `JSON_${string}`>, "JSON_NOT_SERIALIZABLE">;

/**
 * Where in the input a refusal was found. `offset` counts UTF-16 code units
 * for text input and bytes for byte input; `line` and `column` are 1-based and
 * count characters of the decoded text (a column is a Unicode code point).
 */
export interface JsonPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/**
 * Raw text or bytes refused at the JSON boundary. `reason` is the stable
 * description without the position; `message` is `reason` followed by
 * " at line L, column C".
 */
export class JsonBoundaryError extends IsoagentError {
  declare readonly code: JsonErrorCode;
  readonly reason: string;
  readonly offset: number;
  readonly line: number;
  readonly column: number;

  constructor(code: JsonErrorCode, reason: string, position: JsonPosition) {
    super(code, `${reason} at line ${position.line}, column ${position.column}`);
    this.name = "JsonBoundaryError";
    this.reason = reason;
    this.offset = position.offset;
    this.line = position.line;
    this.column = position.column;
  }
}
