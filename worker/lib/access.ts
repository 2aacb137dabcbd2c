// Whether a user still has access to the deployment, as its settings say: asked for what runs with
// nobody signed in (a schedule's fire), where no request's credential answers it. Token mode: their id
// is one of AUTH_TOKENS' users (a revoked token's user is gone). None: the deployment has no sign-in
// to lose. Access mode: Cloudflare Access decides at each sign-in and cannot be asked about a user who
// is away, so the settings take no one's access away.
import type { Env } from "../env";

export function stillHasAccess(env: Pick<Env, "AUTH_MODE" | "AUTH_TOKENS">, userId: string): boolean {
  if ((env.AUTH_MODE || "none") !== "token") return true;
  return (env.AUTH_TOKENS ?? "").split(",").some((pair) => {
    const at = pair.lastIndexOf(":");
    return at > 0 && pair.slice(at + 1).trim() === userId;
  });
}
