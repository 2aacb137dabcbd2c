// Where the objects live. DATA_JURISDICTION (eu, us, fedramp, fedramp-high) makes every object in that
// jurisdiction: each namespace is reached through its jurisdiction's subnamespace, so the objects run
// and keep their data only there. A name gives another id inside a jurisdiction than outside it: an
// object made before the setting is not reached after it (README, "Data residency").
//
// Outside a jurisdiction, a new object is placed near the request that first reaches it. That request
// comes from the Worker, which runs near the user, unless the Worker is placed elsewhere (Smart
// Placement): the objects a person's request creates (their thread, their own object) carry a location
// hint from where the request came from, so they are made near that person either way.
import type { Env } from "../env";

const JURISDICTIONS: readonly DurableObjectJurisdiction[] = ["eu", "us", "fedramp", "fedramp-high"];

/** The namespace objects are made in: the deployment's jurisdiction's, when it has one. */
export function placed<T extends Rpc.DurableObjectBranded | undefined>(env: Env, namespace: DurableObjectNamespace<T>): DurableObjectNamespace<T> {
  const jurisdiction = env.DATA_JURISDICTION?.trim();
  if (!jurisdiction) return namespace;
  if (!JURISDICTIONS.includes(jurisdiction as DurableObjectJurisdiction)) {
    // Never silently outside the jurisdiction asked for.
    throw new Error(`DATA_JURISDICTION must be one of ${JURISDICTIONS.join(", ")}, not ${JSON.stringify(jurisdiction)}`);
  }
  try {
    return namespace.jurisdiction(jurisdiction as DurableObjectJurisdiction);
  } catch (err) {
    // workerd (wrangler dev, the tests) has no jurisdictions: there, and only there, the setting is noted.
    if (!/not implemented in workerd/i.test(String(err))) throw err;
    if (!warned) console.warn(JSON.stringify({ level: "warn", message: "DATA_JURISDICTION: this runtime has no jurisdictions; objects are made as usual", jurisdiction }));
    warned = true;
    return namespace;
  }
}

let warned = false;

/** Where a request came from, as a location hint (none inside a jurisdiction, which places the objects itself). */
export function hintFrom(env: Env, request: Request): DurableObjectLocationHint | undefined {
  if (env.DATA_JURISDICTION?.trim()) return undefined;
  const cf = request.cf as { continent?: string; longitude?: string } | undefined;
  switch (cf?.continent) {
    case "NA":
      return Number(cf.longitude) < -100 ? "wnam" : "enam";
    case "SA":
      return "sam";
    case "EU":
      return Number(cf.longitude) > 20 ? "eeur" : "weur";
    case "AS":
      return Number(cf.longitude) < 60 ? "me" : "apac";
    case "OC":
      return "oc";
    case "AF":
      return "afr";
    default:
      return undefined;
  }
}
