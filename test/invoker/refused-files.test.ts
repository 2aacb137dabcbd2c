// A file the API refused goes as a note from then on: the one its refusal names by path, or, for a
// refusal that names none, the newest of that kind no request was taken with (one at a time at first).
import { APIError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { RefusedFiles } from "../../worker/invoker/refused-files";
import type { ApiMessage } from "../../worker/invoker/types";
import { pngOf } from "../images";

const refusal = (message: string, status = 400) => APIError.generate(status, { type: "error", error: { type: "invalid_request_error", message } }, undefined, new Headers());
const image = (w: number) => ({ type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: pngOf(w, w) } });
const pdf = { type: "document" as const, title: "a.pdf", source: { type: "base64" as const, media_type: "application/pdf" as const, data: btoa("%PDF-1.4") } };
const user = (...blocks: any[]): ApiMessage => ({ role: "user", content: [...blocks, { type: "text", text: "look" }] });
const texts = (messages: ApiMessage[]) => messages.flatMap((m) => m.content as any[]).map((b) => (b.type === "text" ? b.text : b.type));

describe("RefusedFiles", () => {
  it("leaves out the file a refusal names by its path, in a tool's result too, and then always", () => {
    const files = new RefusedFiles();
    const sent: ApiMessage[] = [user(image(10)), { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [image(20) as any] }] }];
    expect(files.learn(refusal("messages.1.content.0.content.0.image.source.base64.data: Could not process image"), sent, 0)).toBe(true);
    expect(texts(files.apply(sent))).toEqual(["image", "look", "tool_result"]);
    expect((files.apply(sent)[1].content as any)[0].content[0]).toEqual({ type: "text", text: "[An image was left out: the model could not take it (Could not process image).]" });
    // Known already: no progress, so the refusal is the run's error.
    expect(files.learn(refusal("messages.1.content.0.content.0.image.source.base64.data: Could not process image"), sent, 1)).toBe(false);
  });

  it("for a refusal with no path, leaves out the newest image never taken, one at a time, then all that remain", () => {
    const files = new RefusedFiles();
    const old = user(image(1), image(2));
    files.accepted([old]);
    let sent = [old, user(image(3), image(4), image(5), image(6), image(7), pdf)];
    const notes = () => texts(files.apply(sent)).filter((t) => t.startsWith("[An image")).length;
    for (const [tries, left] of [[0, 1], [1, 2], [2, 3], [3, 5]] as const) {
      expect(files.learn(refusal("Could not process image"), files.apply(sent), tries)).toBe(true);
      expect(notes()).toBe(left);
    }
    // The images a request was taken with, and the PDF, stay.
    expect(texts(files.apply(sent)).slice(0, 2)).toEqual(["image", "image"]);
    expect(texts(files.apply(sent))).toContain("document");
    expect(files.learn(refusal("Could not process image"), files.apply(sent), 4)).toBe(false);
    // Another kind of refusal is not about files.
    sent = [user(image(8))];
    expect(files.learn(refusal("messages: roles must alternate"), sent, 0)).toBe(false);
    expect(files.learn(refusal("prompt is too long: 300000 tokens > 200000 maximum (images included)"), sent, 0)).toBe(false);
  });
});
