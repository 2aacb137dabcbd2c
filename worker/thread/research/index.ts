// Research: a question planned, its sub-questions researched by task threads at once, one cited report.
export { ResearchDriver, type ResearchDefaults } from "./driver";
export { ResearchStore } from "./store";
export { sourcesIn } from "./report";

/** The plugin context research's tasks are made and followed with: a plugin of no hooks, by its name. */
export const RESEARCH_DRIVER = { name: "research", version: "1.0.0", register: () => ({}) };
