// MCP: the user's servers, their connections, OAuth sign-in and tool calls.
export { McpHub, type McpAnswer, type McpCall } from "./hub";
