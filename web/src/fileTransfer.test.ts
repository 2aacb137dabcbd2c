// Files fetched with the app's credentials: the URLs of the routes that answer bytes, and how a cited
// project file is opened (a PDF in a tab at its page, anything else saved), with the browser's window,
// document and object URLs stubbed (the web's unit tests run in Node).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, setAuthToken } from "./api";
import { attachmentUrl, fetchFile, isPdfType, openOrSave, producedFileUrl, projectFileUrl } from "./fileTransfer";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  setAuthToken(null);
});

describe("file URLs", () => {
  it("builds each bytes route's URL, its ids encoded", () => {
    expect(projectFileUrl("prj_1", "pfl_2")).toBe("/api/projects/prj_1/files/pfl_2");
    expect(projectFileUrl("prj 1", "pfl/2")).toBe("/api/projects/prj%201/files/pfl%2F2");
    expect(attachmentUrl("thr_1", "att_1")).toBe("/api/threads/thr_1/attachments/att_1");
    expect(producedFileUrl("thr_1", "fil_1")).toBe("/api/threads/thr_1/files/fil_1");
  });
});

describe("fetchFile", () => {
  it("sends the app's credentials and reads the name from Content-Disposition", async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    vi.stubGlobal("fetch", async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response("%PDF-1.7", { headers: { "Content-Type": "application/pdf", "Content-Disposition": 'inline; filename="report.pdf"' } });
    });
    setAuthToken("tok");
    const { blob, fileName } = await fetchFile(projectFileUrl("prj_1", "pfl_1"));
    expect(calls[0].url).toBe("/api/projects/prj_1/files/pfl_1");
    expect((calls[0].init.headers as Record<string, string>).Authorization).toBe("Bearer tok");
    expect(blob.type).toBe("application/pdf");
    expect(fileName).toBe("report.pdf");
  });

  it("rejects with the ApiError of a 404", async () => {
    vi.stubGlobal("fetch", async () => Response.json({ error: { code: "not_found", message: "No such file in this project" } }, { status: 404 }));
    const err = await fetchFile(projectFileUrl("prj_1", "pfl_gone")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
  });
});

describe("openOrSave", () => {
  interface FakeTab {
    opener: unknown;
    location: { href: string };
    closed: boolean;
    close(): void;
  }
  let opened: { url: string; tab: FakeTab }[];
  let blocked: boolean;
  let links: { href: string; download: string }[];
  let revoked: string[];
  let made: number;

  beforeEach(() => {
    opened = [];
    blocked = false;
    links = [];
    revoked = [];
    made = 0;
    vi.useFakeTimers();
    vi.stubGlobal("window", {
      open: (url: string) => {
        if (blocked) return null;
        const tab: FakeTab = { opener: "app", location: { href: url }, closed: false, close: () => void (tab.closed = true) };
        opened.push({ url, tab });
        return tab;
      },
    });
    vi.stubGlobal("document", {
      createElement: () => {
        const link = { href: "", download: "", style: {}, click: () => links.push({ href: link.href, download: link.download }), remove: () => {} };
        return link;
      },
      body: { append: () => {} },
    });
    vi.spyOn(URL, "createObjectURL").mockImplementation(() => `blob:unit/${++made}`);
    vi.spyOn(URL, "revokeObjectURL").mockImplementation((url) => void revoked.push(url));
  });
  afterEach(() => vi.restoreAllMocks());

  const pdf = () => Promise.resolve(new Blob(["%PDF-1.7"], { type: "application/pdf" }));
  const xlsx = () => Promise.resolve(new Blob(["PK"], { type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" }));

  it("opens a PDF in the tab it opened within the click, at the page", async () => {
    const done = openOrSave(pdf, "report.pdf", { page: 37, expectPdf: true });
    // Opened before the bytes arrive (after an await it would be a blocked pop-up).
    expect(opened.map((o) => o.url)).toEqual([""]);
    expect(await done).toBe("opened");
    const [{ tab }] = opened;
    expect(tab.location.href).toBe("blob:unit/1#page=37");
    expect(tab.opener).toBeNull();
    expect(links).toEqual([]);
    expect(revoked).toEqual([]);
    vi.advanceTimersByTime(60_000);
    expect(revoked).toEqual(["blob:unit/1"]);
  });

  it("downloads any other type under its name, closing the tab it opened in case", async () => {
    expect(await openOrSave(xlsx, "sales.xlsx")).toBe("saved");
    expect(opened).toEqual([]);
    expect(links).toEqual([{ href: "blob:unit/1", download: "sales.xlsx" }]);

    expect(await openOrSave(() => Promise.resolve(new Blob(["<p>x</p>"], { type: "text/html" })), "page.pdf", { expectPdf: true })).toBe("saved");
    expect(opened[0].tab.closed).toBe(true);
    expect(links[1].download).toBe("page.pdf");
  });

  it("opens a PDF it did not expect in a tab then, and saves it when that is blocked", async () => {
    expect(await openOrSave(() => Promise.resolve(new Blob(["%PDF"], { type: "application/pdf; charset=binary" })), "scan", { page: 2 })).toBe("opened");
    expect(opened.map((o) => o.url)).toEqual(["blob:unit/1#page=2"]);
    expect(opened[0].tab.opener).toBeNull();
    blocked = true;
    expect(await openOrSave(pdf, "report.pdf", { page: 3, expectPdf: true })).toBe("saved");
    expect(links).toEqual([{ href: "blob:unit/3", download: "report.pdf" }]);
    expect(revoked).toContain("blob:unit/2");
  });

  it("opens a PDF without a page at its start", async () => {
    await openOrSave(pdf, "report.pdf", { expectPdf: true });
    expect(opened[0].tab.location.href).toBe("blob:unit/1");
  });

  it("closes the tab and passes the error on when the bytes do not come", async () => {
    const gone = new ApiError(404, "not_found", "No such file in this project");
    await expect(openOrSave(() => Promise.reject(gone), "report.pdf", { page: 37, expectPdf: true })).rejects.toBe(gone);
    expect(opened[0].tab.closed).toBe(true);
    expect(links).toEqual([]);
  });

  it("knows PDF's type whatever its case and parameters", () => {
    expect(isPdfType("application/pdf")).toBe(true);
    expect(isPdfType("Application/PDF; name=x")).toBe(true);
    expect(isPdfType("application/octet-stream")).toBe(false);
    expect(isPdfType("")).toBe(false);
  });
});
