// The suite's second app: no ANTHROPIC_API_KEY (so the offline model, and the provider banner),
// AUTH_MODE=token with three users, and a daily spend cap (that the offline model, costing nothing,
// never reaches). scripts/browser-test.mjs starts it; the tests sign in with these.
export const OFFLINE_USERS = {
  alice: { token: "tok-alice-7f3c", admin: false },
  bob: { token: "tok-bob-91d2", admin: true },
  // The schedule tests' own user: a schedule's fires count against its owner's posts a minute and
  // schedules, so they stay out of the other tests' way.
  carol: { token: "tok-carol-5e8a", admin: false },
};

/**
 * The app's variables: AUTH_TOKENS is `token:user,…`; ADMIN_USERS names who may change plugins;
 * USER_DAILY_COST_USD is each user's daily cap in dollars; schedules may repeat every 2 s.
 */
export function offlineAppVars() {
  const users = Object.entries(OFFLINE_USERS);
  return {
    AUTH_MODE: "token",
    AUTH_TOKENS: users.map(([id, u]) => `${u.token}:${id}`).join(","),
    ADMIN_USERS: users.filter(([, u]) => u.admin).map(([id]) => id).join(","),
    USER_DAILY_COST_USD: "5",
    SCHEDULE_MIN_INTERVAL_S: "2",
  };
}
