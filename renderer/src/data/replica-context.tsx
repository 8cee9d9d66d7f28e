import { identityApi, type Me } from '@shared/api/identity';
import type { PortLike } from '@shared/message-port';
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import type { RxStorage } from 'rxdb';
import { map, type Observable } from 'rxjs';
import {
  ApiError,
  accountDeactivated,
  call,
  endSessionOnServer,
  onAccountDeactivated,
  onTokens,
  refreshSession,
  serverUrl,
  storedTokens,
  storeTokens,
} from '../api';
import { desktopReplicaPort, onReplacedReplicaPort } from '../desktop';
import type { UpgradeProgress } from './database';
import { followReplicaPorts } from './desktop-replica';
import { copiesHeld, type Memory, noteCopy, Replica, type ReplicaStatus } from './replica';
import { ReplicaInUseError } from './replica-errors';
import {
  browserReplicaStorage,
  desktopCopySize,
  discardBrowserCopy,
  discardDesktopCopy,
  keepBrowserStorage,
  remoteReplicaStorage,
} from './storage';
import { claimReplica, type TabOwnership } from './tab-owner';

const ME_KEY = 'orbita.me';
/**
 * The accounts whose copy of the data this device may hold (user id → e-mail): a deactivated one's
 * is found by its e-mail when its sign-in is refused, whoever signed in here since.
 */
/** How the removal of a deactivated account's copy goes, for the other tabs of the browser. */
const DEACTIVATED_KEY = 'orbita.deactivated';

/** Who the signed-in user is for the server's access rules (`formOpenTo`). */
export interface Viewer {
  isAdmin: boolean;
  roleIds: string[];
}

interface ReplicaState {
  replica?: Replica;
  status?: ReplicaStatus;
  /** Who is signed in (remembered, so the app opens offline). */
  me?: Me;
  /** The replica could not be opened. */
  error?: string;
  /**
   * Deletes this device's copy — the open replica, or with `error` the one that could not be opened —
   * with its changes not yet sent, and opens a new one, which the first sync fills from the server.
   * Rejects when it could not be deleted. Absent while another tab holds the copy.
   */
  downloadAgain?: () => Promise<void>;
  /** How many bytes this device's copy takes on disk (the desktop app's files; absent in a browser). */
  copySize?: () => Promise<number | undefined>;
  /** Another tab of this browser holds the replica; `useHere()` takes it over. */
  elsewhere?: boolean;
  useHere?: () => void;
  /** The replica, written by an earlier release, is being brought to this one's schemas. */
  upgrading?: UpgradeProgress;
}

export interface SignOutOptions {
  /** Delete this device's copy of the data (and changes not yet sent) instead of keeping it for the next sign-in. */
  removeCopy: boolean;
}

/**
 * The removal of this device's copy after the server said the account is deactivated: under way,
 * done, or failed (why).
 */
export type DeactivatedCopy =
  | { removal: 'under way' }
  | { removal: 'done' }
  /** `inUse`: another tab or window of the app kept the copy open (the page words it in its language). */
  | { removal: 'failed'; reason: string; inUse?: boolean };

interface ReplicaContextValue extends ReplicaState {
  /** The signed-in account was deactivated: what became of this device's copy of its data. */
  deactivated?: DeactivatedCopy;
  /**
   * A sign-in as `email` was refused because the account is deactivated (its password was right):
   * the copy that account kept here at a sign-out, if any, is removed.
   */
  signInRefusedAsDeactivated: (email: string) => void;
  /**
   * Ends the session on the server and here, then closes the replica or removes this device's copy;
   * rejects when the copy could not be removed.
   */
  signOut: (options: SignOutOptions) => Promise<void>;
}

const ReplicaContext = createContext<ReplicaContextValue>({
  signOut: async () => undefined,
  signInRefusedAsDeactivated: () => undefined,
});

let active: Replica | undefined;

/** The open replica, for loaders outside components that fall back to it without the server. */
export function activeReplica(): Replica | undefined {
  return active;
}

/** The account whose copy this device may hold that signs in as `email`, if any. */
function copyOwnedBy(email: string): string | undefined {
  const wanted = email.trim().toLowerCase();
  const held = Object.entries(copiesHeld(replicaMemory)).find(([, held]) => held.toLowerCase() === wanted);
  if (held) return held[0];
  // Remembered before the device kept a list of its copies.
  const me = rememberedMe();
  return me && me.user.email.toLowerCase() === wanted ? me.user.id : undefined;
}

/** Who was signed in last on this device, as remembered. */
function rememberedMe(): Me | undefined {
  const remembered = localStorage.getItem(ME_KEY);
  return remembered ? (JSON.parse(remembered) as Me) : undefined;
}

/**
 * Removes `userId`'s copy without opening it (the session ended before it was opened): through a
 * port of its own to the desktop app's replica process, or from this browser's IndexedDB.
 */
async function removeUnopenedCopy(userId: string, browserStorage: () => Promise<RxStorage<unknown, unknown>>) {
  const desktopPort = desktopReplicaPort();
  if (!desktopPort) {
    return Replica.removeCopy({ userId, storage: await browserStorage(), memory: replicaMemory });
  }
  const port = await desktopPort;
  try {
    await Replica.removeCopy({ userId, storage: remoteReplicaStorage(port), memory: replicaMemory });
  } finally {
    port.close?.();
  }
}

/**
 * Deletes `userId`'s copy without opening it — it could not be opened: over `port` by the desktop
 * app's replica process, else from this browser's IndexedDB.
 */
function discardUnopenedCopy(userId: string, port?: PortLike): Promise<void> {
  const discard = (databaseName: string) =>
    port ? discardDesktopCopy(port, databaseName) : discardBrowserCopy(databaseName);
  return Replica.discardCopy({ userId, discard, memory: replicaMemory });
}

/** Shows how the removal of a deactivated account's copy goes: under way, then done or failed. */
function followRemoval(removal: Promise<void>, show: (copy: DeactivatedCopy) => void): void {
  show({ removal: 'under way' });
  removal.then(
    () => show({ removal: 'done' }),
    (caught: unknown) =>
      show({
        removal: 'failed',
        reason: caught instanceof Error ? caught.message : String(caught),
        ...(caught instanceof ReplicaInUseError ? { inUse: true } : {}),
      }),
  );
}

/** The signed-in user: from the server, or as remembered when it cannot be reached. */
async function whoAmI(): Promise<Me | undefined> {
  try {
    const me = await call(identityApi.getCurrentUser);
    localStorage.setItem(ME_KEY, JSON.stringify(me));
    noteCopy(replicaMemory, me.user.id, me.user.email);
    return me;
  } catch (caught) {
    // Unreachable, or failing for now (a restart behind a proxy): the device works from its copy.
    if (caught instanceof ApiError && (caught.problem.status === 0 || caught.problem.status >= 500)) {
      return rememberedMe();
    }
    return undefined;
  }
}

/** What replicas remember beside their databases: this browser's localStorage, shared by its tabs. */
const replicaMemory: Memory = {
  get: (key) => localStorage.getItem(key),
  set: (key, value) => localStorage.setItem(key, value),
  remove: (key) => localStorage.removeItem(key),
};

/** Changes waiting to be sent in the signed-in user's copy, whichever tab of this browser holds it. */
export function pendingOnDevice(userId: string): number {
  return Replica.pendingCount(userId, replicaMemory);
}

/** The browser build's replica storage: IndexedDB. (The desktop app's comes from its replica process.) */
async function browserStorage(): Promise<RxStorage<unknown, unknown>> {
  return browserReplicaStorage();
}

/**
 * Opens the signed-in user's replica and keeps it while the session lasts; closes it on sign-out.
 * Screens read lists and tasks from it, so they work with the network cut.
 */
export function ReplicaProvider({
  children,
  storage = browserStorage,
}: {
  children: ReactNode;
  storage?: () => Promise<RxStorage<unknown, unknown>>;
}) {
  const [state, setState] = useState<ReplicaState>({});
  const [deactivated, setDeactivated] = useState<DeactivatedCopy>();
  // Told to the other tabs too: they are signed out with this one and say why on their sign-in page.
  const showDeactivated = (copy: DeactivatedCopy | undefined) => {
    setDeactivated(copy);
    if (copy) localStorage.setItem(DEACTIVATED_KEY, JSON.stringify(copy));
    else localStorage.removeItem(DEACTIVATED_KEY);
  };
  const showDeactivatedRef = useRef(showDeactivated);
  showDeactivatedRef.current = showDeactivated;
  useEffect(() => {
    const told = (event: StorageEvent) => {
      if (event.key !== DEACTIVATED_KEY) return;
      setDeactivated(event.newValue ? (JSON.parse(event.newValue) as DeactivatedCopy) : undefined);
    };
    window.addEventListener('storage', told);
    return () => window.removeEventListener('storage', told);
  }, []);
  const [session, setSession] = useState(() => storedTokens()?.refreshToken);
  const storageRef = useRef(storage);
  // How the current session's replica ends (set by `signOut`), and who waits for that ending.
  const removeOnEnd = useRef(false);
  const sessionEnded = useRef<((ending: Promise<void>) => void) | undefined>(undefined);
  const sessionOpen = useRef(false);

  useEffect(
    () =>
      // A new session (sign-in) opens a replica; its end (sign-out) closes it. Refreshes keep it.
      onTokens((tokens) => {
        if (!tokens) setSession(undefined);
        else {
          setSession((current) => current ?? tokens.refreshToken);
          showDeactivatedRef.current(undefined);
        }
      }),
    [],
  );

  useEffect(() => {
    if (!session) return;
    sessionOpen.current = true;
    let opened: Replica | undefined;
    let closed = false;
    let ownership: TabOwnership | undefined;
    let desktop: ReturnType<typeof followReplicaPorts> | undefined;
    let copySize: ReplicaState['copySize'];
    const subscriptions: { unsubscribe(): void }[] = [];
    // Whether this tab holds the replica (a browser tab may wait while another one has it).
    let owning = false;
    let signedIn: Me | undefined;
    const openReplica = (me: Me, replicaStorage: RxStorage<unknown, unknown>) =>
      Replica.open({
        userId: me.user.id,
        serverUrl: serverUrl(),
        storage: replicaStorage,
        accessToken: () => storedTokens()?.accessToken,
        reauthenticate: async (rejected) => (await refreshSession(rejected))?.accessToken,
        onDeactivated: accountDeactivated,
        memory: replicaMemory,
        window,
        onUpgrade: (upgrading) => !closed && setState({ me, upgrading }),
      });
    const show = (me: Me, replica: Replica) => {
      opened = replica;
      active = replica;
      subscriptions.push(
        replica.status$.subscribe((status) =>
          setState({ me, replica, status, downloadAgain: () => downloadAgain(me), copySize }),
        ),
      );
    };
    const hide = (replica: Replica) => {
      for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
      if (active === replica) active = undefined;
      if (opened === replica) opened = undefined;
    };
    // Opening the copy failed: it can only be deleted (and brought again), not removed through RxDB.
    let unopened = false;
    const failed = (me: Me, caught: unknown) => {
      unopened = true;
      const error = caught instanceof Error ? caught.message : String(caught);
      if (!closed) setState({ me, error, downloadAgain: () => downloadAgain(me) });
    };
    const downloadAgain = async (me: Me) => {
      if (closed) return;
      const wasUnopened = unopened;
      const replica = opened;
      if (!wasUnopened && !replica) return;
      unopened = false;
      // Screens let the copy go before it is deleted.
      if (replica) {
        hide(replica);
        setState({ me });
      }
      try {
        if (desktop) await desktop.openNewCopy();
        else if (replica) await replica.remove();
        else await discardUnopenedCopy(me.user.id);
      } catch (error) {
        // Not deleted: the copy stays as it was (one that was open is opened again).
        unopened = wasUnopened;
        if (replica && !desktop && !closed) await open(me);
        throw error;
      }
      if (!desktop && !closed) await open(me);
      // The new copy is this device's again (the deletion forgot the old one).
      noteCopy(replicaMemory, me.user.id, me.user.email);
    };
    const followDesktop = (me: Me, firstPort: Promise<PortLike>) => {
      const databaseName = Replica.databaseName(me.user.id);
      copySize = async () => desktop?.ask((port) => desktopCopySize(port, databaseName));
      desktop = followReplicaPorts({
        firstPort: () => firstPort,
        onReplaced: onReplacedReplicaPort,
        open: (replicaStorage) => openReplica(me, replicaStorage),
        opened: (replica) => show(me, replica),
        closing: hide,
        failed: (caught) => failed(me, caught),
        discard: (port) => discardUnopenedCopy(me.user.id, port),
      });
    };
    const open = async (me: Me) => {
      try {
        const replica = await openReplica(me, await storageRef.current());
        if (closed) {
          // The session ended while it opened: it ends as the session's replica would have.
          const ended = removeWhenEnded ? replica.remove() : replica.close();
          return void ended.catch(() => undefined);
        }
        show(me, replica);
        // The browser may clear a site's storage when the disk runs short, the copy and the changes
        // it has not sent with it: it is asked to keep it (the desktop's copy is a file of its own).
        void keepBrowserStorage();
      } catch (caught) {
        failed(me, caught);
      }
    };
    let removeWhenEnded = false;
    const shut = async (remove: boolean, me: Me | undefined) => {
      if (desktop) return desktop.stop({ remove });
      // A copy that could not be opened is deleted without opening it (the desktop's, over its port).
      if (remove && unopened && me) return discardUnopenedCopy(me.user.id);
      const closing = opened;
      if (closing) {
        hide(closing);
        return remove ? closing.remove() : closing.close();
      }
      // Another tab holds the copy: it closes it as the session ends there too, then it goes.
      if (remove && !owning && ownership && me) {
        const held = ownership;
        const removal = async () =>
          Replica.removeCopy({ userId: me.user.id, storage: await storageRef.current(), memory: replicaMemory });
        return held.releaseThen(removal);
      }
      // Ended before the copy was opened (the server refused who is signed in): removed unopened.
      if (remove && !ownership && me) return removeUnopenedCopy(me.user.id, storageRef.current);
    };
    void (async () => {
      const me = await whoAmI();
      if (closed || !me) return;
      signedIn = me;
      // Who is signed in is known before the replica opens: screens need it at once.
      setState({ me });
      // The desktop app has one window and its replica in the replica process, opened again on a
      // new port when that process restarts; in a browser, tabs take turns with one copy.
      const firstPort = desktopReplicaPort();
      if (firstPort) return followDesktop(me, firstPort);
      ownership = claimReplica(me.user.id, {
        owned: () => {
          owning = true;
          void open(me);
        },
        elsewhere: () => !closed && setState({ me, elsewhere: true, useHere: () => ownership?.takeOver() }),
        handOver: () => {
          owning = false;
          return shut(false, undefined);
        },
      });
    })();
    return () => {
      closed = true;
      removeWhenEnded = removeOnEnd.current;
      removeOnEnd.current = false;
      sessionOpen.current = false;
      const me = signedIn ?? rememberedMe();
      // Nothing of the user stays on the device: not even who was signed in last.
      if (removeWhenEnded) localStorage.removeItem(ME_KEY);
      // The lock goes once the replica is closed, so the next holder finds IndexedDB free.
      const ending = shut(removeWhenEnded, me).finally(() => ownership?.release());
      ending.catch(() => undefined);
      sessionEnded.current?.(ending);
      sessionEnded.current = undefined;
      setState({});
    };
  }, [session]);

  const signOut = async ({ removeCopy }: SignOutOptions) => {
    // What became of a deactivated colleague's copy is no news to the next person signing in.
    showDeactivated(undefined);
    await endSessionOnServer(storedTokens()?.refreshToken).catch(() => undefined);
    await endSession(removeCopy);
  };

  /** Forgets the session's tokens, then closes its replica or removes this device's copy. */
  const endSession = async (removeCopy: boolean) => {
    if (!sessionOpen.current) return storeTokens(undefined);
    removeOnEnd.current = removeCopy;
    // The session's end (on the next render) closes or removes its replica: wait for that.
    const ended = new Promise<void>((resolve) => {
      sessionEnded.current = resolve;
    });
    storeTokens(undefined);
    await ended;
  };

  // The replica's state on the page's root element (`data-replica`), for support and automation:
  // e.g. "online ready" once connected with the first pull done.
  const { status } = state;
  useEffect(() => {
    const root = document.documentElement;
    if (!status) delete root.dataset.replica;
    else {
      const link = status.online ? 'online' : status.connecting ? 'connecting' : 'offline';
      root.dataset.replica = `${link} ${status.ready ? 'ready' : 'syncing'}`;
    }
  }, [status]);
  // A deactivated account's session ends here, and its data leaves the device: the server ended its
  // sessions, and nothing it holds could be sent anyway.
  const endSessionRef = useRef(endSession);
  endSessionRef.current = endSession;
  useEffect(
    () =>
      onAccountDeactivated(() => {
        if (sessionOpen.current) followRemoval(endSessionRef.current(true), showDeactivatedRef.current);
      }),
    [],
  );
  // The signed-in account's own deactivation reaches it from the server; any other's copy can go.
  const signedInId = state.me?.user.id;
  const signInRefusedAsDeactivated = (email: string) => {
    const userId = copyOwnedBy(email);
    if (!userId || (sessionOpen.current && (signedInId === undefined || userId === signedInId))) return;
    if (rememberedMe()?.user.id === userId) localStorage.removeItem(ME_KEY);
    followRemoval(removeUnopenedCopy(userId, storageRef.current), showDeactivated);
  };
  return (
    <ReplicaContext.Provider value={{ ...state, deactivated, signOut, signInRefusedAsDeactivated }}>
      {children}
    </ReplicaContext.Provider>
  );
}

export function useReplica(): ReplicaContextValue {
  return useContext(ReplicaContext);
}

/**
 * The latest value of a live query of the replica; `make` builds the observable from the replica
 * and is rebuilt when `deps` change. Undefined until the first value (or without a replica).
 */
export function useLive<T>(
  make: (replica: Replica) => Observable<T> | undefined,
  deps: readonly unknown[],
): T | undefined {
  const { replica } = useReplica();
  const [value, setValue] = useState<{ of: unknown; value: T }>();
  const makeRef = useRef(make);
  makeRef.current = make;
  const key = JSON.stringify(deps);
  // `key` stands for `deps`.
  useEffect(() => {
    if (!replica) return;
    const observable = makeRef.current(replica);
    if (!observable) return;
    const subscription = observable.subscribe((next) => setValue({ of: key, value: next }));
    return () => subscription.unsubscribe();
  }, [replica, key]);
  // A value of earlier deps is not shown for the new ones, nor one of a replica no longer open.
  return replica && value && value.of === key ? value.value : undefined;
}

/**
 * The signed-in user's administrator flag and roles for the server's access rules (`formOpenTo`):
 * as the replica holds their user document (a change of roles reaches the screens while they are
 * open), else as remembered at sign-in.
 */
export function useViewer(): Viewer | undefined {
  const { me } = useReplica();
  const userId = me?.user.id ?? '';
  const held = useLive(
    (r) => r.db.users.findOne(userId).$.pipe(map((doc) => (doc ? (doc.toJSON() as unknown as Viewer) : null))),
    [userId],
  );
  if (!me) return undefined;
  if (held) return { isAdmin: held.isAdmin, roleIds: held.roleIds };
  return { isAdmin: me.user.isAdmin, roleIds: me.roles.map((role) => role.id) };
}
