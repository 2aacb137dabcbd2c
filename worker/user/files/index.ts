// Files: the user's context and memory files, and the bytes of what they sent with messages against
// their storage quota.
export { ContextFiles } from "./context-files";
export { StoredFiles, type StoredFile } from "./stored-files";
export { UpstreamFiles } from "./upstream-files";
