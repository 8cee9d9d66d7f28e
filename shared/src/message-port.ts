/**
 * The part of a message port the replica storage needs. Node's `worker_threads` ports, the
 * browser's `MessagePort` and Electron's `MessagePortMain` differ in how they deliver messages;
 * each side adapts its port to this.
 */
export interface PortLike {
  postMessage(message: unknown): void;
  /** Calls `listener` with each message's data; returns a function that stops listening. */
  onMessage(listener: (data: unknown) => void): () => void;
  /** Calls `listener` once the other end is gone (where the port can tell). */
  onClose?(listener: () => void): () => void;
  close?(): void;
}

/**
 * A browser (or renderer) `MessagePort` as a PortLike. A browser port does not say when the other
 * end is gone; `onClose` listeners hear this end's `close()`.
 */
export function browserPort(port: MessagePort): PortLike {
  const closeListeners = new Set<() => void>();
  return {
    postMessage: (message) => port.postMessage(message),
    onMessage(listener) {
      const handler = (event: MessageEvent) => listener(event.data);
      port.addEventListener('message', handler);
      port.start();
      return () => port.removeEventListener('message', handler);
    },
    onClose(listener) {
      closeListeners.add(listener);
      return () => closeListeners.delete(listener);
    },
    close: () => {
      port.close();
      for (const listener of [...closeListeners]) listener();
      closeListeners.clear();
    },
  };
}

/** A port with Node's EventEmitter interface (`worker_threads`, Electron's `MessagePortMain`). */
export function emitterPort(
  port: {
    postMessage(message: unknown): void;
    on(event: 'message' | 'close', listener: (value: unknown) => void): unknown;
    off(event: 'message' | 'close', listener: (value: unknown) => void): unknown;
    start?(): void;
    close?(): void;
  },
  unwrap: (value: unknown) => unknown = (value) => value,
): PortLike {
  return {
    postMessage: (message) => port.postMessage(message),
    onMessage(listener) {
      const handler = (value: unknown) => listener(unwrap(value));
      port.on('message', handler);
      port.start?.();
      return () => port.off('message', handler);
    },
    onClose(listener) {
      const handler = () => listener();
      port.on('close', handler);
      return () => port.off('close', handler);
    },
    close: () => port.close?.(),
  };
}
