// Stands in for Electron's utility process in tests: gives the bundled replica process the
// `process.parentPort` Electron would, and hands it ports as the main process does.
const { EventEmitter } = require('node:events');
const { parentPort: thread, workerData } = require('node:worker_threads');

/** A worker_threads port shaped like Electron's MessagePortMain, whose messages arrive as {data, ports}. */
function electronLikePort(port) {
  const handlers = new Map();
  return {
    postMessage: (message) => port.postMessage(message),
    on(event, listener) {
      const handler = (data) => listener({ data, ports: [] });
      handlers.set(listener, handler);
      port.on(event, handler);
    },
    off(event, listener) {
      port.off(event, handlers.get(listener));
      handlers.delete(listener);
    },
    start: () => port.start(),
    close: () => port.close(),
  };
}

const parentPort = new EventEmitter();
// What the process posts to the main process (tile answers) reaches the test as { fromProcess }.
parentPort.postMessage = (message) => thread.postMessage({ fromProcess: message });
process.parentPort = parentPort;
require(workerData.bundle);
thread.on('message', ({ message, port }) => {
  parentPort.emit('message', { data: message, ports: port ? [electronLikePort(port)] : [] });
});
thread.postMessage('ready');
