// PROTOCOL.md in types: the one module the Worker and the web app share.
export * from "./shapes";
export * from "./resources";
export * from "./errors";
export * from "./events";
export * from "./api";
export * from "./limits";
export * from "./web-activity";
export * from "./code-activity";
export * from "./mcp";
export * from "./format";
export * from "./knowledge";
export * from "./api-keys";
export * from "./research";
export * from "./oauth";
