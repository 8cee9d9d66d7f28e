import { type AppBridge, REPLICA_PORT_MESSAGE } from '@shared/desktop/bridge';
import { browserPort, type PortLike } from '@shared/message-port';

/** The desktop shell's bridge (`window.orbita`), or undefined in a plain browser. */
export function desktopBridge(): AppBridge | undefined {
  if (typeof window === 'undefined') return undefined;
  return (window as Window & { orbita?: AppBridge }).orbita;
}

/** Where the replica ports the preload posts to a window go: to the requests waiting, in order, else to `replaced`. */
interface PortRouting {
  waiting: ((port: PortLike) => void)[];
  replaced: Set<(port: PortLike) => void>;
}

const routings = new WeakMap<object, PortRouting>();

function portRouting(): PortRouting {
  let routing = routings.get(window);
  if (routing) return routing;
  const created: PortRouting = { waiting: [], replaced: new Set() };
  routings.set(window, created);
  window.addEventListener('message', (event: MessageEvent) => {
    // Only the preload's message to this very window carries the port.
    if (event.source !== window || event.data !== REPLICA_PORT_MESSAGE) return;
    const raw = event.ports[0];
    if (!raw) return;
    const port = browserPort(raw);
    const asked = created.waiting.shift();
    if (asked) asked(port);
    else if (created.replaced.size > 0) for (const listener of created.replaced) listener(port);
    else port.close?.();
  });
  routing = created;
  return routing;
}

/**
 * A port to the desktop app's offline replica (for `remoteReplicaStorage`), or undefined in a
 * plain browser. Each call asks the shell for a port and resolves with the next one the preload
 * posts to this window.
 */
export function desktopReplicaPort(): Promise<PortLike> | undefined {
  const bridge = desktopBridge();
  if (!bridge) return undefined;
  const routing = portRouting();
  return new Promise((resolve) => {
    routing.waiting.push(resolve);
    bridge.requestReplicaPort();
  });
}

/**
 * Calls `listener` with each replica port the shell posts without being asked: the replica process
 * restarted (after a crash), the old port leads nowhere and the replica must be opened on this one.
 * Returns a function that stops listening; a no-op in a plain browser.
 */
export function onReplacedReplicaPort(listener: (port: PortLike) => void): () => void {
  if (!desktopBridge()) return () => {};
  const routing = portRouting();
  routing.replaced.add(listener);
  return () => routing.replaced.delete(listener);
}
