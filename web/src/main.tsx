import { QueryClientProvider } from "@tanstack/react-query";
import { lazy, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./components/App";
import { parseRoute } from "./lib/router";
import { createQueryClient } from "./queries/queryClient";
import { restoreToken, SessionGate } from "./session/SessionGate";
import "./styles/index.css";

// A share link's page is for anyone with the link: no session, no sign-in, none of the app around it.
const SharedPage = lazy(() => import("./pages/SharedPage"));
// An app asking to connect to the MCP server: the signed-in user decides, on a page of its own.
const ConsentPage = lazy(() => import("./pages/ConsentPage"));
const route = parseRoute(location.pathname);

if (route.name !== "shared") restoreToken();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={createQueryClient()}>
      {route.name === "shared" ? (
        <Suspense fallback={<div className="sign-in muted" role="status">Loading…</div>}>
          <SharedPage shareId={route.shareId} />
        </Suspense>
      ) : (
        <SessionGate>
          {route.name === "oauthConsent" ? (
            <Suspense fallback={<div className="sign-in muted" role="status">Loading…</div>}>
              <ConsentPage />
            </Suspense>
          ) : (
            <App />
          )}
        </SessionGate>
      )}
    </QueryClientProvider>
  </StrictMode>,
);
