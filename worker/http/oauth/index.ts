// The app's OAuth 2.1 authorization server for its MCP server (PROTOCOL.md, "/mcp"): the library's
// roles per origin (roles.ts), its public endpoints, the consent page's calls and the /mcp route.
export { oauthEndpoints } from "./endpoints";
export { oauthConsentRoutes } from "./consent-routes";
export { mcpRoute } from "./mcp-route";
