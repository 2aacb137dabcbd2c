import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./components/App";
import { createQueryClient } from "./queries/queryClient";
import { restoreToken, SessionGate } from "./session/SessionGate";
import "./styles/index.css";

restoreToken();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={createQueryClient()}>
      <SessionGate>
        <App />
      </SessionGate>
    </QueryClientProvider>
  </StrictMode>,
);
