// A produced file's bytes: from the owner's route, or from a share's own on a shared page; typed as
// the file says; fetched once for a card's image, preview and download.
import type { ProducedFile } from "@protocol";
import { QueryClient } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { producedFileQuery } from "./producedFiles";

const file: ProducedFile = { id: "fil_1", threadId: "thr_1", runId: "run_1", name: "chart.png", mediaType: "image/png", bytes: 3, createdAt: 1 };

afterEach(() => vi.unstubAllGlobals());

function serve() {
  const fetch = vi.fn(async () => new Response(new Uint8Array([1, 2, 3]), { headers: { "Content-Type": "application/octet-stream", "Content-Disposition": 'attachment; filename="chart.png"' } }));
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

describe("a produced file's bytes", () => {
  it("come from the thread's file route, typed as the file, once", async () => {
    const fetch = serve();
    const qc = new QueryClient();
    const blob = await qc.fetchQuery(producedFileQuery(file));
    await qc.fetchQuery(producedFileQuery(file));
    expect(fetch.mock.calls.map((c) => String((c as unknown[])[0]))).toEqual(["/api/threads/thr_1/files/fil_1"]);
    expect(blob.type).toBe("image/png");
    expect(blob.size).toBe(3);
  });

  it("come from the share's route on a shared page", async () => {
    const fetch = serve();
    await new QueryClient().fetchQuery(producedFileQuery(file, { shareId: "shr_9" }));
    expect(fetch.mock.calls.map((c) => String((c as unknown[])[0]))).toEqual(["/api/shared/shr_9/files/fil_1"]);
  });
});
