// The consent page's logic (pages/ConsentPage.tsx): the authorization request it was opened with,
// what a grant reaches in words, and where the page may send the browser afterwards.

import { MCP_OAUTH_SCOPE, type OAuthConsent } from "@protocol";

/** What the page shows: the request's facts to decide on, the way out, or why it cannot ask. */
export type ConsentView =
  | { step: "loading" }
  | { step: "ask"; consent: OAuthConsent; busy: boolean }
  | { step: "leaving"; host: string; href: string }
  | { step: "error"; message: string };

/** The authorization request: the page's own query, as the client put it on the authorization endpoint's URL; null without one. */
export function authorizationRequest(search: string): string | null {
  const query = search.replace(/^\?/, "");
  return query ? query : null;
}

/** What a grant of `scope` lets the app do, one line each, as the page lists it. */
export function accessOf(scope: string[]): string[] {
  return scope.flatMap((s) =>
    s === MCP_OAUTH_SCOPE
      ? ["Search and read your threads", "Ask in your threads: start one, or continue one, which runs the model for you", "See the list of your projects"]
      : [s],
  );
}

/**
 * Where the browser goes after a decision: the server's answer, if it is a web address. Anything else
 * (a `javascript:` URL above all) is never navigated to; the library never answers one, and the page
 * does not take that on trust.
 */
export function redirectTarget(redirectTo: string): URL | null {
  try {
    const url = new URL(redirectTo);
    return url.protocol === "https:" || url.protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}

/** The page's view once the server answered the request: ask, or leave at once for where it says. */
export function viewOf(answer: { consent: OAuthConsent } | { redirectTo: string }): ConsentView {
  if ("consent" in answer) return { step: "ask", consent: answer.consent, busy: false };
  return leavingFor(answer.redirectTo);
}

/** Leaving for `redirectTo`, or the error that says the answer was no place to go. */
export function leavingFor(redirectTo: string): ConsentView {
  const target = redirectTarget(redirectTo);
  return target ? { step: "leaving", host: target.host, href: target.href } : { step: "error", message: "The server answered with an address this page will not open." };
}

export const NO_REQUEST = "This page is where an app asks to connect to your account. Open it from the app you are connecting (Claude, ChatGPT or another MCP client).";
