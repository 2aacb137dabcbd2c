// Knowledge on the app under `wrangler dev`: a project's search over 10,000 passages (the route's
// round trip: the Worker, the owner's object and its FTS5 index), and a 1 MB Word document's ingest
// (upload to ready: the Worker extracts it after the answer, the owner's object cuts and indexes it).
import { api } from "./clients.mjs";

/** Deterministic words: a vocabulary of 5,000 made-up words, drawn with a skew (a few common, many rare). */
function words(seed) {
  let s = seed >>> 0;
  const next = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const syllables = ["ka", "lo", "mi", "ten", "ra", "vu", "sel", "do", "pri", "an", "qua", "zo", "fen", "li", "mor", "tas"];
  const vocabulary = Array.from({ length: 5_000 }, (_, i) => {
    let w = "";
    for (let n = i + 7; n > 0; n = Math.floor(n / 16)) w += syllables[n % 16];
    return w;
  });
  return { pick: () => vocabulary[Math.floor(vocabulary.length * next() ** 2.5)], next };
}

async function upload(base, projectId, name, type, body) {
  const res = await fetch(`${base}/api/projects/${projectId}/files?name=${encodeURIComponent(name)}`, { method: "POST", headers: { "content-type": type }, body });
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
  return (await res.json()).file;
}

/** A project of `passages` passages (Markdown, 400 sections of about 1,000 characters a document); then `searches` timed searches. */
export async function retrieval(base, { passages = 10_000, searches = 25 } = {}) {
  const { project } = await api(base, "/api/projects", { name: `bench retrieval ${Date.now()}` });
  const w = words(42);
  const perDoc = 400;
  for (let d = 0; d < Math.ceil(passages / perDoc); d++) {
    const sections = Array.from({ length: perDoc }, (_, i) => `# Part ${d}.${i}\n\n${Array.from({ length: 150 }, () => w.pick()).join(" ")}.`);
    await upload(base, project.id, `doc-${d}.md`, "text/markdown", sections.join("\n\n"));
  }
  const { files } = await api(base, `/api/projects/${project.id}/files`);
  const indexed = files.reduce((n, f) => n + (f.passages ?? 0), 0);
  const times = [];
  for (let i = 0; i < searches + 3; i++) {
    const q = Array.from({ length: 4 }, () => w.pick()).join(" ");
    const t0 = performance.now();
    const { results } = await api(base, `/api/projects/${project.id}/search?q=${encodeURIComponent(q)}&limit=5`);
    const ms = performance.now() - t0;
    if (i >= 3) times.push(ms); // the first searches warm the object and its index's pages
    if (!Array.isArray(results)) throw new Error("search answered no results list");
  }
  return { times, indexed };
}

/** Upload to ready, `runs` times, of a Word document of about 1 MB (`makeDocx` builds it). */
export async function ingest(base, makeDocx, { runs = 5 } = {}) {
  const { project } = await api(base, "/api/projects", { name: `bench ingest ${Date.now()}` });
  const docx = makeDocx();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const file = await upload(base, project.id, `big-${i}.docx`, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", docx);
    for (let status = file.status; status === "processing"; ) {
      await new Promise((r) => setTimeout(r, 10));
      status = (await api(base, `/api/projects/${project.id}/files`)).files.find((f) => f.id === file.id)?.status;
      if (status === "failed") throw new Error("the bench's DOCX failed to ingest");
    }
    times.push(performance.now() - t0);
  }
  return { times, bytes: docx.byteLength };
}
