import { errorText } from "../api";
import { API_KEYS_PATH, CONNECTIONS_PATH, Link, navigate, threadPath, useRoute, type Route } from "../lib/router";
import { useCreateThread } from "../queries/threadMutations";
import { useSession } from "../session/SessionGate";
import { NewProject } from "./NewProject";
import { NotificationToggle } from "./NotificationToggle";
import { SidebarThreads } from "./SidebarThreads";

const NAV: { to: string; label: string; testid: string; match: Route["name"] }[] = [
  { to: "/", label: "Chat", testid: "nav-chat", match: "chat" },
  { to: "/plugins", label: "Plugins", testid: "nav-plugins", match: "plugins" },
  { to: "/context", label: "Context", testid: "nav-context", match: "context" },
  { to: "/tasks", label: "Tasks", testid: "nav-tasks", match: "tasks" },
  { to: "/scheduled", label: "Scheduled", testid: "nav-scheduled", match: "scheduled" },
  { to: "/usage", label: "Usage", testid: "nav-usage", match: "usage" },
  { to: CONNECTIONS_PATH, label: "Connections", testid: "nav-connections", match: "connections" },
  { to: API_KEYS_PATH, label: "API keys", testid: "nav-api-keys", match: "apiKeys" },
];

/** Who is signed in, and the way out; a deployment without sign-in (`none`) says so instead. */
function Account() {
  const { auth, signOut } = useSession();
  if (!signOut) {
    return (
      <div className="account" data-testid="account">
        <span className="muted small">No sign-in: this deployment has one local user.</span>
      </div>
    );
  }
  return (
    <div className="account" data-testid="account">
      <span className="muted small">
        Signed in as <strong data-testid="account-user">{auth.userId}</strong>
      </span>
      <button type="button" className="button ghost small" data-testid="sign-out" onClick={signOut}>
        Sign out
      </button>
    </div>
  );
}

/** Ctrl+K, or ⌘K where the platform says it is a Mac. */
const SEARCH_KEYS = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘K" : "Ctrl+K";

export function Sidebar({ onNavigate, onSearch }: { onNavigate: () => void; onSearch: () => void }) {
  const route = useRoute();
  const createThread = useCreateThread();
  const activeId = route.name === "chat" ? route.threadId : null;

  const create = () =>
    createThread.mutate(
      {},
      {
        onSuccess: (thread) => {
          navigate(threadPath(thread.id));
          onNavigate();
        },
      },
    );

  return (
    <div className="sidebar-inner">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">◆</span>
        <span>Orchestrator</span>
      </div>

      <nav className="main-nav" aria-label="Main">
        {NAV.map((item) => (
          <Link
            key={item.to}
            href={item.to}
            data-testid={item.testid}
            className="nav-link"
            aria-current={route.name === item.match ? "page" : undefined}
            onClick={onNavigate}
          >
            {item.label}
          </Link>
        ))}
      </nav>

      <button
        type="button"
        className="search-button"
        data-testid="open-search"
        aria-keyshortcuts="Control+K Meta+K"
        onClick={() => {
          onNavigate();
          onSearch();
        }}
      >
        <span aria-hidden="true">⌕</span>
        <span className="search-button-label">Search</span>
        <kbd>{SEARCH_KEYS}</kbd>
      </button>

      <button type="button" className="button primary new-thread" data-testid="new-thread" onClick={create} disabled={createThread.isPending}>
        <span aria-hidden="true">+</span> New thread
      </button>
      <NewProject onNavigate={onNavigate} />
      {createThread.error && (
        <p className="error-text small" role="alert">
          {errorText(createThread.error)}
        </p>
      )}

      <SidebarThreads activeId={activeId} activeProject={route.name === "project" ? route.projectId : null} onNavigate={onNavigate} />
      <NotificationToggle />
      <Account />
    </div>
  );
}
