import { type AppBridge, REPLICA_PORT_MESSAGE } from '@shared/desktop/bridge';
import { browserPort, type PortLike } from '@shared/message-port';

/** The desktop shell's bridge (`window.orbita`), or undefined in a plain browser. */
export function desktopBridge(): AppBridge | undefined {
  if (typeof window === 'undefined') return undefined;
  return (window as Window & { orbita?: AppBridge }).orbita;
}

/**
 * A port to the desktop app's offline replica (for `remoteReplicaStorage`), or undefined in a
 * plain browser. Each call asks the shell for a port and resolves with the next one the preload
 * posts to this window; after the replica process restarts, a new call gets the new port.
 */
export function desktopReplicaPort(): Promise<PortLike> | undefined {
  const bridge = desktopBridge();
  if (!bridge) return undefined;
  return new Promise((resolve) => {
    const receive = (event: MessageEvent) => {
      // Only the preload's message to this very window carries the port.
      if (event.source !== window || event.data !== REPLICA_PORT_MESSAGE) return;
      const port = event.ports[0];
      if (!port) return;
      window.removeEventListener('message', receive);
      resolve(browserPort(port));
    };
    window.addEventListener('message', receive);
    bridge.requestReplicaPort();
  });
}
