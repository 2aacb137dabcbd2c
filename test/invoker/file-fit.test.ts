// Files the Messages API would refuse never go: an image past 5 MB of base64, past 8000 px a side,
// past 2000 px once a request holds more than 20, past 100 in a request; files past 24 MiB of a
// request's 32 MB. Each is replaced by a note, the newest kept first, so one file can never fail
// every later run of a thread.
import { describe, expect, it } from "vitest";
import { refBlock } from "../../worker/invoker/attachment-refs";
import { FILE_LIMITS, fitFiles, fitRefs, imageSide } from "../../worker/invoker/file-fit";
import type { ApiMessage } from "../../worker/invoker/types";
import { gifOf, jpegOf, pngOf, webpOf } from "../images";

const image = (data: string) => ({ type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data } });
const userWith = (...blocks: any[]): ApiMessage => ({ role: "user", content: [...blocks, { type: "text", text: "look" }] });
const notesIn = (messages: ApiMessage[]) => messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content)).flatMap((b: any) => (b.type === "tool_result" ? b.content : [b])).filter((b: any) => b.type === "text" && b.text.startsWith("[An image was left out")).map((b: any) => b.text);
const imagesIn = (messages: ApiMessage[]) => messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content)).flatMap((b: any) => (b.type === "tool_result" ? b.content : [b])).filter((b: any) => b.type === "image");

describe("imageSide", () => {
  it("reads the longer side of a PNG, a GIF, a WebP and a JPEG (past its metadata) from the header", () => {
    expect(imageSide(pngOf(9000, 120))).toBe(9000);
    expect(imageSide(gifOf(30, 2500))).toBe(2500);
    expect(imageSide(webpOf(4000, 3000))).toBe(4000);
    expect(imageSide(jpegOf(4032, 3024, 40_000))).toBe(4032);
    expect(imageSide("bm90IGFuIGltYWdl")).toBeNull();
  });
});

describe("fitFiles", () => {
  it("leaves a conversation the API takes as it is (the same object)", () => {
    const messages = [userWith(image(pngOf(800, 600)))];
    expect(fitFiles(messages)).toBe(messages);
  });

  it("replaces an image past 5 MB of base64 or 8000 px with a note saying why, in a tool's result too", () => {
    const big = image(pngOf(1000, 1000, 4 * 1024 * 1024));
    const wide = image(pngOf(9000, 100));
    const result: ApiMessage = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "shot" }, wide as any] }] };
    const out = fitFiles([userWith(big), { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x__shot", input: {} }] }, result]);
    expect(notesIn(out)).toEqual([
      "[An image was left out: it is 5.3 MB encoded, past the model's 5 MB.]",
      "[An image was left out: it is 9000 pixels on a side, past the model's 8000.]",
    ]);
    expect(imagesIn(out)).toHaveLength(0);
    expect((out[2].content as any)[0].content[0]).toEqual({ type: "text", text: "shot" });
  });

  it("keeps the newest files within 24 MiB of a request, and leaves out older ones past it", () => {
    const pdf = (title: string) => ({ type: "document" as const, title, source: { type: "base64" as const, media_type: "application/pdf" as const, data: "J".repeat(10 * 1024 * 1024) } });
    const out = fitFiles([userWith(pdf("old.pdf")), userWith(pdf("middle.pdf"), image(pngOf(100, 100))), userWith(pdf("new.pdf"))]);
    expect(notesIn(out)).toEqual([]);
    expect((out[0].content as any[])[0]).toEqual({ type: "text", text: "[A document (old.pdf) was left out: a request takes at most 32 MB, and newer files came first.]" });
    expect(out.flatMap((m) => m.content as any[]).filter((b) => b.type === "document").map((b) => b.title)).toEqual(["middle.pdf", "new.pdf"]);
    expect(imagesIn(out)).toHaveLength(1);
  });

  it("past 20 images, leaves out the oldest over 2000 px until 20 remain; past 100, the oldest", () => {
    const large = Array.from({ length: 22 }, () => image(pngOf(3000, 2000)));
    const out = fitFiles([userWith(...large.slice(0, 10)), userWith(...large.slice(10, 20)), userWith(...large.slice(20))]);
    expect(imagesIn(out)).toHaveLength(FILE_LIMITS.many);
    expect(notesIn(out)).toHaveLength(2);
    expect((out[0].content as any[]).slice(0, 2).every((b) => b.type === "text")).toBe(true);
    const small = Array.from({ length: 105 }, () => image(pngOf(100, 100)));
    const many = fitFiles(Array.from({ length: 21 }, (_, i) => userWith(...small.slice(i * 5, i * 5 + 5))));
    expect(imagesIn(many)).toHaveLength(FILE_LIMITS.most);
    expect(notesIn(many)).toEqual(Array(5).fill("[An image was left out: a request takes at most 100 images.]"));
    expect((many[0].content as any[]).slice(0, 5).every((b) => b.type === "text")).toBe(true);
  });
});

describe("fitRefs", () => {
  const ref = (id: string, mediaType: string, bytes: number, name = `${id}.pdf`) => refBlock({ id, mediaType, bytes, name });
  const MB = 1_000_000;

  it("leaves out, before any byte is read, an image reference past 5 MB of base64 (its stored size times 4/3)", () => {
    const out = fitRefs([userWith(ref("big", "image/png", 4.9 * MB), ref("fits", "image/jpeg", 3.7 * MB))]);
    expect(notesIn(out)).toEqual(["[An image was left out: it is 6.2 MB encoded, past the model's 5 MB.]"]);
    expect((out[0].content as any[])[1]).toEqual(ref("fits", "image/jpeg", 3.7 * MB));
  });

  it("keeps the newest references within 24 MiB of base64, counting files already read (a tool's), and leaves those to fitFiles", () => {
    const toolImage = image("A".repeat(4 * MB));
    const result: ApiMessage = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [toolImage as any] }] };
    // 4 MB of base64 from the tool's image, about 4.9 MB each for the images (3.7 MB stored): the newest four fit, the fifth does not.
    const img = (id: string) => ref(id, "image/png", 3.7 * MB);
    const out = fitRefs([userWith(img("oldest")), userWith(img("old")), userWith(img("mid")), result, userWith(img("newer")), userWith(img("new"))]);
    expect((out[0].content as any[])[0]).toEqual({ type: "text", text: "[An image was left out: a request takes at most 32 MB, and newer files came first.]" });
    expect((out[1].content as any[])[0]).toEqual(img("old"));
    expect((out[3].content as any[])[0].content[0]).toBe(toolImage);
    expect((out[5].content as any[])[0]).toEqual(img("new"));
  });

  it("leaves a long document out of the files' room: it goes as its best passages, never whole", () => {
    const long = ref("manual", "application/pdf", 6 * MB);
    expect((long as any).source.url).toMatch(/#long$/);
    const out = fitRefs([userWith(long), userWith(ref("old", "image/png", 3.7 * MB))]);
    expect((out[0].content as any[])[0]).toEqual(long);
    expect((out[1].content as any[])[0]).toEqual(ref("old", "image/png", 3.7 * MB));
  });

  it("leaves a conversation without references as it is (the same object)", () => {
    const messages = [userWith(image(pngOf(800, 600)))];
    expect(fitRefs(messages)).toBe(messages);
  });
});
