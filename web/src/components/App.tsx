import { useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { usePathname, useRoute } from "../lib/router";
import { healthQuery } from "../queries/deployment";
import { followOtherTabs } from "../queries/threads";
import { ChatView } from "./ChatView";
import { ProviderBanner } from "./ProviderBanner";
import { SearchPalette } from "./SearchPalette";
import { Sidebar } from "./Sidebar";

const PluginsPage = lazy(() => import("../pages/PluginsPage"));
const ContextPage = lazy(() => import("../pages/ContextPage"));
const TasksPage = lazy(() => import("../pages/TasksPage"));
const ScheduledPage = lazy(() => import("../pages/ScheduledPage"));
const UsagePage = lazy(() => import("../pages/UsagePage"));
const ProjectPage = lazy(() => import("../pages/ProjectPage"));
const ConnectionsPage = lazy(() => import("../pages/ConnectionsPage"));
const ApiKeysPage = lazy(() => import("../pages/ApiKeysPage"));

function RouteView() {
  const route = useRoute();
  switch (route.name) {
    case "chat":
      return <ChatView key={route.threadId ?? "new"} threadId={route.threadId} />;
    case "project":
      return <ProjectPage key={route.projectId} projectId={route.projectId} />;
    case "plugins":
      return <PluginsPage />;
    case "context":
      return <ContextPage />;
    case "tasks":
      return <TasksPage />;
    case "scheduled":
      return <ScheduledPage />;
    case "usage":
      return <UsagePage />;
    case "connections":
      return <ConnectionsPage />;
    case "apiKeys":
      return <ApiKeysPage />;
    default:
      return (
        <div className="page">
          <h1>Not found</h1>
          <p className="muted">There is no page at this address.</p>
        </div>
      );
  }
}

export function App() {
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [searching, setSearching] = useState(false);
  const pathname = usePathname();
  const menuButton = useRef<HTMLButtonElement>(null);
  const sidebar = useRef<HTMLElement>(null);

  const queryClient = useQueryClient();
  const provider = useQuery(healthQuery).data?.model.provider;
  useEffect(() => followOtherTabs(queryClient), [queryClient]);

  // Ctrl+K (Cmd+K on a Mac) opens the search palette from anywhere, and closes it again.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
        e.preventDefault();
        setSearching((open) => !open);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  // Close the drawer when the page changes; Escape closes it too. Opening it moves focus into it.
  useEffect(() => setDrawerOpen(false), [pathname]);
  useEffect(() => {
    if (!drawerOpen) return;
    sidebar.current?.querySelector<HTMLElement>("a, button")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setDrawerOpen(false);
        menuButton.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [drawerOpen]);

  return (
    <div className={"app" + (drawerOpen ? " drawer-open" : "")} data-provider={provider}>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <aside className="sidebar" id="sidebar" aria-label="Threads and navigation" ref={sidebar}>
        <Sidebar onNavigate={() => setDrawerOpen(false)} onSearch={() => setSearching(true)} />
      </aside>
      <div className="drawer-scrim" aria-hidden="true" onClick={() => setDrawerOpen(false)} />
      <div className="main-column">
        <div className="mobile-bar">
          <button
            ref={menuButton}
            type="button"
            className="icon-button"
            aria-label={drawerOpen ? "Close menu" : "Open menu"}
            aria-expanded={drawerOpen}
            aria-controls="sidebar"
            data-testid="menu-toggle"
            onClick={() => setDrawerOpen((o) => !o)}
          >
            ☰
          </button>
          <span className="brand small-brand">Orchestrator</span>
        </div>
        <ProviderBanner />
        <main id="main" className="main" tabIndex={-1}>
          <Suspense fallback={<div className="page muted">Loading…</div>}>
            <RouteView />
          </Suspense>
        </main>
      </div>
      {searching && <SearchPalette onClose={() => setSearching(false)} />}
    </div>
  );
}
