// Hybrid ranking (user/knowledge/embeddings.ts): where a deployment binds Workers AI and Vectorize,
// each passage is embedded as it is indexed and a search fuses BM25's ranking with the nearest
// passages'. Neither binding runs under wrangler dev or in workerd's test pool, so these tests give
// the code two small stand-ins with the bindings' shapes: an embedder that knows a few synonyms (so
// the nearest passages differ from BM25's) and an index of cosine similarity by namespace. The
// KnowledgeIndex and Projects are the real ones, on a real user object's SQLite.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Embeddings, fuse, KnowledgeIndex, type EmbeddingBindings } from "../../worker/user/knowledge";
import { Projects, type ProjectEffects } from "../../worker/user/projects";
import { userObject } from "../helpers";

const SYNONYMS: Record<string, string> = { automobile: "car", vehicle: "car", motorcar: "car", repair: "fix", mend: "fix" };
const DIMENSIONS = ["car", "fix", "garden", "invoice", "holiday", "other"];

/** Bags of words over a few dimensions, synonyms folded together, normalized. */
function embed(text: string): number[] {
  const v = DIMENSIONS.map(() => 0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const at = DIMENSIONS.indexOf(SYNONYMS[word] ?? word);
    v[at >= 0 ? at : DIMENSIONS.length - 1] += at >= 0 ? 1 : 0.05;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

function standIns(): EmbeddingBindings & { stored: Map<string, { values: number[]; namespace: string }> } {
  const stored = new Map<string, { values: number[]; namespace: string }>();
  return {
    stored,
    ai: { run: async (_model, { text }) => ({ data: text.map(embed) }) },
    vectors: {
      upsert: async (vectors) => {
        for (const v of vectors) stored.set(v.id, { values: [...(v.values as number[])], namespace: v.namespace ?? "" });
        return { mutationId: "m" } as any;
      },
      deleteByIds: async (ids) => {
        for (const id of ids) stored.delete(id);
        return { mutationId: "m" } as any;
      },
      query: async (vector, options) => {
        const q = [...(vector as number[])];
        const matches = [...stored]
          .filter(([, v]) => v.namespace === options?.namespace)
          .map(([id, v]) => ({ id, score: v.values.reduce((n, x, i) => n + x * q[i], 0) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, options?.topK ?? 5);
        return { matches, count: matches.length } as any;
      },
    },
  };
}

describe("hybrid ranking", () => {
  it("fuses rankings by reciprocal rank: what both rank high comes first", () => {
    expect(fuse([["a", "b", "c"], ["c", "a", "d"]], 4)).toEqual(["a", "c", "b", "d"]);
    expect(fuse([["x"], []], 5)).toEqual(["x"]);
  });

  it("embeds a project's passages as they are indexed, finds by meaning what BM25 misses, and forgets a deleted file's", async () => {
    const user = userObject(`hybrid-${crypto.randomUUID()}`);
    await runInDurableObject(user as any, async (_room, state) => {
      const bindings = standIns();
      const pending: Promise<unknown>[] = [];
      const effects: ProjectEffects = {
        threadsIn: () => [], leaveInDirectory: () => [], storageUsed: () => 0, invalidate: () => {}, leave: () => {},
        filesGone: () => {}, readText: async () => null, background: (p) => void pending.push(p),
        logger: { info: () => {}, warn: () => {}, error: () => {} } as any,
      };
      const projects = new Projects(state.storage.sql, effects, new KnowledgeIndex(state.storage.sql), new Embeddings(bindings));
      const project = projects.create("Fleet", "");
      const file = (id: string, name: string) => ({ id, projectId: project.id, name, mediaType: "text/markdown", bytes: 10, createdAt: Date.now(), r2Key: `k/${id}` });
      expect(projects.addFile(file("pfl_a", "garage.md"), { quotaBytes: 1e9, maxFiles: 10 })).toBe("kept");
      expect(projects.addFile(file("pfl_b", "garden.md"), { quotaBytes: 1e9, maxFiles: 10 })).toBe("kept");
      projects.indexed(project.id, "pfl_a", [{ location: { heading: "Workshop" }, text: "Bring the automobile to the workshop on Mondays to mend it." }], null);
      projects.indexed(project.id, "pfl_b", [{ location: { heading: "Beds" }, text: "The garden beds are weeded on Fridays; holiday rota in the invoice folder." }], null);
      await Promise.all(pending);
      expect([...bindings.stored.keys()].sort()).toEqual(["pfl_a:0", "pfl_b:0"]);

      // "car" and "fix" are in no passage: BM25 finds nothing, the embeddings find the workshop.
      const found = await projects.search(project.id, "where do I fix my car", 5);
      expect(found?.[0]).toMatchObject({ fileId: "pfl_a", name: "garage.md", location: { heading: "Workshop" } });
      // Where BM25 finds the words, the fused ranking keeps its best.
      expect((await projects.search(project.id, "garden beds", 5))?.[0]).toMatchObject({ fileId: "pfl_b" });

      expect(projects.deleteFile(project.id, "pfl_a")).toBe(true);
      await Promise.all(pending);
      expect([...bindings.stored.keys()]).toEqual(["pfl_b:0"]);
      expect((await projects.search(project.id, "where do I fix my car", 5))?.some((r) => r.fileId === "pfl_a")).toBe(false);
    });
  });

  it("ranks by BM25 alone when the embeddings fail", async () => {
    const user = userObject(`hybrid-${crypto.randomUUID()}`);
    await runInDurableObject(user as any, async (_room, state) => {
      const warnings: string[] = [];
      const broken: EmbeddingBindings = { ai: { run: async () => { throw new Error("AI is down"); } }, vectors: standIns().vectors };
      const effects = {
        threadsIn: () => [], leaveInDirectory: () => [], storageUsed: () => 0, invalidate: () => {}, leave: () => {},
        filesGone: () => {}, readText: async () => null, background: () => {},
        logger: { info: () => {}, warn: (m: string) => void warnings.push(m), error: () => {} } as any,
      } satisfies ProjectEffects;
      const projects = new Projects(state.storage.sql, effects, new KnowledgeIndex(state.storage.sql), new Embeddings(broken));
      const project = projects.create("Down", "");
      projects.addFile({ id: "pfl_c", projectId: project.id, name: "notes.md", mediaType: "text/markdown", bytes: 1, createdAt: 0, r2Key: "k" }, { quotaBytes: 1e9, maxFiles: 10 });
      projects.indexed(project.id, "pfl_c", [{ location: { heading: "" }, text: "The invoice folder is on the shelf." }], null);
      expect((await projects.search(project.id, "invoice folder", 5))?.[0]).toMatchObject({ fileId: "pfl_c" });
      expect(warnings.some((w) => w.includes("BM25 alone"))).toBe(true);
    });
  });
});
