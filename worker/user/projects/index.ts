// Projects: instructions and files that every thread of a project is given.
export { Projects, type ProjectEffects } from "./projects";
export type { FileBounds, StoredProjectFile } from "./store";
