/** Reads a server-sent event body, message by message (tests of the live event stream). */

export interface Message {
  readonly event: string;
  readonly id?: number;
  readonly data: string;
}

/** Reads an SSE body message by message. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const messages: Message[] = [];
  let done = false;
  const pump = async (): Promise<boolean> => {
    const r = await reader.read();
    if (r.done) {
      done = true;
      return false;
    }
    buffer += decoder.decode(r.value, { stream: true });
    for (let k = buffer.indexOf("\n\n"); k >= 0; k = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, k);
      buffer = buffer.slice(k + 2);
      const fields = Object.fromEntries(block.split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]));
      messages.push({ event: fields["event"] ?? "message", data: fields["data"] ?? "", ...(fields["id"] === undefined ? {} : { id: Number(fields["id"]) }) });
    }
    return true;
  };
  return {
    messages,
    get done() {
      return done;
    },
    /** Reads until `ok` holds of the messages so far (or the stream ends). */
    async until(ok: (m: readonly Message[]) => boolean): Promise<readonly Message[]> {
      while (!ok(messages) && (await pump()));
      return messages;
    },
    cancel: () => reader.cancel(),
  };
}
