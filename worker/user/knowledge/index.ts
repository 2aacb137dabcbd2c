// Knowledge: a project's documents, their text cut into passages and indexed (FTS5, BM25) in the
// owner's object, searched for a question; where Workers AI and Vectorize are bound, embedded too,
// and the two rankings fused. Extraction happens where the bytes are (the Worker's route,
// off the request path: worker/lib/extract/); this part keeps what came of it.
export { KnowledgeIndex, type FileKnowledge, type Found } from "./index-store";
export { CANDIDATES, Embeddings, fuse, type EmbeddingBindings } from "./embeddings";
export { cutPassages, PASSAGE_CHARS, type Passage } from "../../lib/passages";
