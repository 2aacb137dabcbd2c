// Hybrid ranking, where a deployment binds Workers AI (AI) and a Vectorize index (VECTORS): each
// passage is embedded as it is indexed (bge-base, 768 dimensions; the index is made with
// `wrangler vectorize create <name> --dimensions=768 --metric=cosine`), one namespace a project, and a
// search fuses BM25's ranking with the nearest passages' (reciprocal rank fusion). Without them, or
// when they fail, BM25 alone serves: wrangler dev needs neither.

export const EMBEDDING_MODEL = "@cf/baai/bge-base-en-v1.5";
/** Texts a Workers AI call embeds at once, and vectors a Vectorize call takes. */
const BATCH = 50;
/** Candidates each ranking gives the fusion. */
export const CANDIDATES = 20;

/** The bindings hybrid ranking needs: a text embedder and a vector index. */
export interface EmbeddingBindings {
  ai: { run(model: string, input: { text: string[] }): Promise<unknown> };
  vectors: Pick<Vectorize, "upsert" | "query" | "deleteByIds">;
}

/** A passage's id in the vector index: its file and its place in the file's order. */
export const vectorId = (fileId: string, n: number) => `${fileId}:${n}`;

export class Embeddings {
  constructor(private readonly b: EmbeddingBindings) {}

  /** A file's passages (in order), embedded and stored in its project's namespace. */
  async add(projectId: string, fileId: string, texts: string[]): Promise<void> {
    for (let at = 0; at < texts.length; at += BATCH) {
      const batch = texts.slice(at, at + BATCH);
      const vectors = await this.embed(batch);
      await this.b.vectors.upsert(vectors.map((values, i) => ({ id: vectorId(fileId, at + i), values, namespace: projectId, metadata: { fileId } })));
    }
  }

  /** A file's passages leave the index (`count`: how many it had). */
  async remove(fileId: string, count: number): Promise<void> {
    const ids = Array.from({ length: count }, (_, n) => vectorId(fileId, n));
    for (let at = 0; at < ids.length; at += 1_000) await this.b.vectors.deleteByIds(ids.slice(at, at + 1_000));
  }

  /** The project's passages nearest to `question`, nearest first, as vector ids. */
  async nearest(projectId: string, question: string, k = CANDIDATES): Promise<string[]> {
    const [vector] = await this.embed([question]);
    const { matches } = await this.b.vectors.query(vector, { topK: k, namespace: projectId });
    return matches.map((m) => m.id);
  }

  private async embed(texts: string[]): Promise<number[][]> {
    const out = (await this.b.ai.run(EMBEDDING_MODEL, { text: texts })) as { data?: number[][] };
    if (!Array.isArray(out?.data) || out.data.length !== texts.length) throw new Error("Workers AI answered no embeddings");
    return out.data;
  }
}

/**
 * Reciprocal rank fusion: each list gives an item 1 / (k + rank); the items by their sums, best first.
 * k = 60, as the method's authors found robust; neither ranking's scores need be comparable.
 */
export function fuse(lists: string[][], limit: number, k = 60): string[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1)));
  return [...scores].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([id]) => id);
}
