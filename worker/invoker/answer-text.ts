// An answer's text as it streams, the same on the wire and in the stored message: text after a tool
// (ours or the server's) starts a new paragraph, since the model's text on either side of a search is
// often not spaced. A tool's input as it streams (tool_input) is not yet a tool: its tool_call, which
// follows, is. A citation is placed where the text stands when it comes.
import type { StreamEvent } from "./types";

const TURN_SEPARATOR = "\n\n";

export class AnswerText {
  private afterTool = false;

  constructor(
    /** The text so far (a resumed run's, at first). */
    public text: string,
    private readonly send: (e: StreamEvent) => void,
  ) {}

  /** A stream event: shaped, added to the text, and passed on. */
  readonly event = (e: StreamEvent): void => {
    if (e.type === "citations") e = { ...e, at: this.text.length };
    if (e.type === "text") {
      if (this.afterTool && this.text.length > 0 && !/\s$/.test(this.text)) {
        this.text += TURN_SEPARATOR;
        this.send({ type: "text", delta: TURN_SEPARATOR });
      }
      this.afterTool = false;
      this.text += e.delta;
    } else if (e.type !== "thinking" && e.type !== "citations" && e.type !== "tool_input") this.afterTool = true;
    this.send(e);
  };

  /** Tools ran: the next text begins a paragraph. */
  toolsRan(): void {
    this.afterTool = true;
  }
}
