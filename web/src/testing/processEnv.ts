// React reads process.env.NODE_ENV, which a library build for the unit tests' Chromium page leaves
// in place (the app's own build replaces it): imported first, this gives the page one. Development:
// that build compiles JSX to jsxDEV, which only React's development runtime has (and its warnings help).
const g = globalThis as { process?: { env: Record<string, string> } };
g.process ??= { env: { NODE_ENV: "development" } };
export {};
