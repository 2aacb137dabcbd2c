import { describe, expect, it } from "vitest";
import { imageSource } from "./imageSource";

const ORIGIN = "https://app.example";

describe("imageSource", () => {
  it("keeps data: and blob: images", () => {
    expect(imageSource("data:image/png;base64,AAAA", ORIGIN)).toBe("inline");
    expect(imageSource("  BLOB:https://app.example/1234", ORIGIN)).toBe("inline");
  });

  it("keeps this origin's images, relative or absolute", () => {
    expect(imageSource("/api/threads/t/attachments/a", ORIGIN)).toBe("same-origin");
    expect(imageSource("pic.png", ORIGIN)).toBe("same-origin");
    expect(imageSource("https://app.example/pic.png", ORIGIN)).toBe("same-origin");
  });

  it("calls every other host remote, however it is spelled", () => {
    for (const src of [
      "https://images.example/cat.png",
      "http://app.example/pic.png", // another scheme is another origin
      "https://app.example:8443/pic.png",
      "//cdn.example/x.png",
      "/\\cdn.example/x.png",
      " \thttps://tracker.example/p.gif",
      "ftp://files.example/x.png",
    ]) {
      expect(imageSource(src, ORIGIN), src).toBe("remote");
    }
  });

  it("treats Cloudflare's own paths (Access's logout) as remote", () => {
    expect(imageSource("/cdn-cgi/access/logout", ORIGIN)).toBe("remote");
    expect(imageSource("/CDN-CGI/access/logout", ORIGIN)).toBe("remote");
  });

  it("treats what is not a URL as remote", () => {
    expect(imageSource("http://[bad", ORIGIN)).toBe("remote");
  });
});
