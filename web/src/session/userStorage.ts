// Browser storage per user: every key is `orchestrator:<userId>:<name>` (drafts, the outbox, the
// token), so that one user never reads another's, and signing out removes exactly one user's.
// `orchestrator:user` names the user this browser last signed in as: the one whose token to send.

const PREFIX = "orchestrator:";
const CURRENT_USER = `${PREFIX}user`;
/** Keys of the app's versions before per-user storage: whose they were is unknown. */
const LEGACY_PREFIX = "orchestrator.";

type KeyValueStore = Pick<Storage, "getItem" | "setItem" | "removeItem" | "key" | "length">;

export interface UserStorage {
  get(name: string): string | null;
  set(name: string, value: string): void;
  remove(name: string): void;
  /** Removes every key of this user; what is set after (a component still unmounting) is not kept. */
  clear(): void;
}

/** A store that refuses (private mode, quota) acts as an empty one: the app works for this page. */
function attempt<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

function keysWithPrefix(store: KeyValueStore, prefix: string): string[] {
  return attempt(() => {
    const keys: string[] = [];
    for (let i = 0; i < store.length; i++) {
      const key = store.key(i);
      if (key?.startsWith(prefix)) keys.push(key);
    }
    return keys;
  }, []);
}

export function userStorage(userId: string, store: KeyValueStore = localStorage): UserStorage {
  const prefix = `${PREFIX}${encodeURIComponent(userId)}:`;
  // A signed-out session's storage: the page is leaving (Access's logout), but its effects may still run.
  let cleared = false;
  return {
    get: (name) => attempt(() => store.getItem(prefix + name), null),
    set: (name, value) => (cleared ? undefined : attempt(() => store.setItem(prefix + name, value), undefined)),
    remove: (name) => attempt(() => store.removeItem(prefix + name), undefined),
    clear: () => {
      cleared = true;
      keysWithPrefix(store, prefix).forEach((key) => attempt(() => store.removeItem(key), undefined));
    },
  };
}

export const rememberedUser = (store: KeyValueStore = localStorage): string | null =>
  attempt(() => store.getItem(CURRENT_USER), null);

export const rememberUser = (userId: string, store: KeyValueStore = localStorage): void =>
  attempt(() => store.setItem(CURRENT_USER, userId), undefined);

export const forgetUser = (store: KeyValueStore = localStorage): void => attempt(() => store.removeItem(CURRENT_USER), undefined);

/** Another tab signed in or out: this one must not go on as the previous user. */
export const isUserChange = (event: StorageEvent): boolean => event.key === CURRENT_USER || event.key === null;

export function forgetLegacyKeys(store: KeyValueStore = localStorage): void {
  keysWithPrefix(store, LEGACY_PREFIX).forEach((key) => attempt(() => store.removeItem(key), undefined));
}
