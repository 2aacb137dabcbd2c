import { startFakeUpstream } from "./fake-upstream/server.mjs";

// Runs in Node, before the workers: the fake Messages API every test talks to.
export default async function setup() {
  const upstream = await startFakeUpstream({ port: Number(process.env.FAKE_UPSTREAM_PORT) });
  return () => upstream.close();
}
