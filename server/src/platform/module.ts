import type { Server as SocketServer } from 'socket.io';
import type { Config } from './config';
import type { Db } from './db/db';
import type { AnyRoute } from './http/routes';
import type { Logger } from './logging';

/** Process-wide facts the platform keeps and modules may read. */
export interface AppState {
  readonly version: string;
  readonly startedAt: number;
  /** True once shutdown began: health reports `stopping`, responses close their connection. */
  stopping: boolean;
}

/** What every module receives to build itself. */
export interface ModuleContext {
  config: Config;
  db: Db;
  logger: Logger;
  io: SocketServer;
  state: AppState;
}

/** A module's manifest: its name and its routes (event processors and jobs join in later steps). */
export interface AppModule {
  name: string;
  routes: AnyRoute[];
}

export type ModuleFactory = (context: ModuleContext) => AppModule;
