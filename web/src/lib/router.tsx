// A tiny router on the history API: `/`, `/t/<threadId>`, `/projects/<projectId>`, `/plugins`, `/context`, `/tasks`,
// `/scheduled`, `/usage`, `/settings/connections`, `/settings/api-keys`; and `/s/<shareId>`, a share link's read-only page (main.tsx shows it without the app),
// and `/oauth/authorize`, the consent page an app connecting to the MCP server sends the user to (main.tsx shows it signed in, without the app).

import { OAUTH_AUTHORIZE_PATH } from "@protocol";
import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { createStore, useStore } from "./store";

export type Route =
  | { name: "chat"; threadId: string | null }
  | { name: "project"; projectId: string }
  | { name: "shared"; shareId: string }
  | { name: "plugins" }
  | { name: "context" }
  | { name: "tasks" }
  | { name: "scheduled" }
  | { name: "usage" }
  | { name: "connections" }
  | { name: "apiKeys" }
  | { name: "oauthConsent" }
  | { name: "notFound" };

/**
 * The MCP servers' page. The Worker's OAuth callback redirects here, with `?mcp=<serverId>` once a
 * sign-in succeeded or `?mcp_error=<message>` when it did not.
 */
export const CONNECTIONS_PATH = "/settings/connections";

/** The API keys' page: keys for programs, and how to call the compatible endpoints with them. */
export const API_KEYS_PATH = "/settings/api-keys";

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path === "/") return { name: "chat", threadId: null };
  const thread = /^\/t\/([^/]+)$/.exec(path);
  if (thread) return { name: "chat", threadId: decodeURIComponent(thread[1]) };
  const project = /^\/projects\/([^/]+)$/.exec(path);
  if (project) return { name: "project", projectId: decodeURIComponent(project[1]) };
  const shared = /^\/s\/([^/]+)$/.exec(path);
  if (shared) return { name: "shared", shareId: decodeURIComponent(shared[1]) };
  if (path === "/plugins") return { name: "plugins" };
  if (path === "/context") return { name: "context" };
  if (path === "/tasks") return { name: "tasks" };
  if (path === "/scheduled") return { name: "scheduled" };
  if (path === "/usage") return { name: "usage" };
  if (path === CONNECTIONS_PATH) return { name: "connections" };
  if (path === API_KEYS_PATH) return { name: "apiKeys" };
  if (path === OAUTH_AUTHORIZE_PATH) return { name: "oauthConsent" };
  return { name: "notFound" };
}

export const threadPath = (threadId: string) => `/t/${encodeURIComponent(threadId)}`;
export const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`;

const pathname = createStore(location.pathname);
window.addEventListener("popstate", () => pathname.set(location.pathname));

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (opts.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  pathname.set(location.pathname);
}

export function usePathname(): string {
  return useStore(pathname);
}

export function useRoute(): Route {
  return parseRoute(usePathname());
}

/** An <a> that navigates without reloading (modifier clicks keep the browser's behaviour). */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (rest.target && rest.target !== "_self") return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}
