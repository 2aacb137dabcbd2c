// What the search palette lists for what is typed: threads by name (from the list already loaded)
// and messages by content (the server's search, once typing pauses), narrowed to a project: by
// default the one of the thread or project page shown.
import type { SearchResult } from "@protocol";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { MIN_QUERY, paletteEntries, paletteStatus } from "../lib/palette";
import { useRoute } from "../lib/router";
import { projectsQuery } from "../queries/projects";
import { searchQuery } from "../queries/search";
import { useThread, useThreadList } from "../queries/threads";
import { useDebounced } from "./useDebounced";

/** One empty list for every render without results, so that the selection is not reset by each. */
const NO_RESULTS: SearchResult[] = [];

export function usePaletteSearch(query: string) {
  const settled = useDebounced(query.trim(), 200);
  const { threads: allThreads } = useThreadList(false);
  const route = useRoute();
  const shownThread = useThread(route.name === "chat" ? route.threadId : null).data;
  const here = route.name === "project" ? route.projectId : (shownThread?.projectId ?? null);
  const projects = useQuery(projectsQuery).data ?? [];
  const [scope, setScope] = useState<string | null>(here);
  const projectId = scope && projects.some((p) => p.id === scope) ? scope : null;
  const threads = useMemo(() => (projectId ? allThreads.filter((t) => t.projectId === projectId) : allThreads), [allThreads, projectId]);
  const search = useQuery({ ...searchQuery(settled, projectId), enabled: settled.length >= MIN_QUERY, placeholderData: keepPreviousData });
  const results = settled.length >= MIN_QUERY ? (search.data ?? NO_RESULTS) : NO_RESULTS;

  const entries = useMemo(() => paletteEntries(query, threads, results), [query, threads, results]);
  const status = paletteStatus(query.trim(), settled, search, entries.length);
  return { entries, results, status, projects, projectId, setScope };
}
