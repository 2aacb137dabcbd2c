// The fake Messages API's control client, for every side that drives it: the workerd tests (test/helpers.ts),
// the browser tests, the bench and the soak. Each call is one request to its /_control routes (server.mjs).

/** The control routes of the fake at `baseUrl` (e.g. "http://127.0.0.1:54321"). */
export function fakeControl(baseUrl) {
  const control = async (method, path, body) => {
    const res = await fetch(`${baseUrl}/_control/${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} /_control/${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : res.json();
  };
  return {
    /** Plays `responses`, one a request, to the requests that hold `match`. */
    script: (match, responses) => control("POST", "scripts", { match, responses }),
    /** The requests received that hold `match`, oldest first. */
    requests: async (match) => (await control("GET", `requests?match=${encodeURIComponent(match)}`)).requests,
    /** The fake's limits (context window, compaction), for the requests that hold `config.match` only when given. */
    config: (config) => control("POST", "config", config),
    reset: () => control("POST", "reset"),
    /** The Files API's files (uploads and what scripted code made) with upload and download counts. */
    files: () => control("GET", "files"),
    /** Largest file POST /v1/files takes, in bytes (413 past it); no argument restores the API's 500 MB. */
    fileLimit: (maxBytes) => control("POST", "files/limit", maxBytes === undefined ? {} : { maxBytes }),
    /** The Files API answers `status` for file `id`, or for uploads named `filename`, until reset. */
    failFiles: (failure) => control("POST", "files/fail", failure),
    /** The code execution containers, with the files in each. */
    containers: async () => (await control("GET", "containers")).containers,
    /** Later requests naming container `id` get `error` (default: 400 invalid_request_error "… has expired …"). */
    expireContainer: (id, error = {}) => control("POST", "containers/expire", { id, ...error }),
  };
}

/** The text of a Messages API request's `system` (a string or an array of text blocks). */
export function systemText(body) {
  const system = body?.system;
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((b) => (typeof b === "string" ? b : (b?.text ?? ""))).join("\n");
  return "";
}
