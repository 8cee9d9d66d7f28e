import type { Server as HttpServer } from 'node:http';
import { Server as SocketServer } from 'socket.io';
import type { Logger } from '../logging';

/**
 * Socket.IO on the application's HTTP server (same port as the API). Sync and live events attach
 * their handlers here in their modules.
 */
export function createRealtime(httpServer: HttpServer, logger: Logger): SocketServer {
  const io = new SocketServer(httpServer, { serveClient: false, path: '/socket.io' });
  io.on('connection', (socket) => {
    logger.debug({ socketId: socket.id }, 'socket connected');
    socket.on('disconnect', (reason) => logger.debug({ socketId: socket.id, reason }, 'socket disconnected'));
  });
  return io;
}
