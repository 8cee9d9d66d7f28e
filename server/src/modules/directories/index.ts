import type { ModuleFactory } from '../../platform/module';
import { directoriesRoutes } from './directories.routes';
import { directoriesSyncSource, directoryRowsSyncSource } from './directories.sync';

/** Directories: reference tables with row trees, sub-directories bound to parent rows, CSV import/export. */
export const directoriesModule: ModuleFactory = (context) => {
  const deps = { db: context.db, events: context.events };
  return {
    name: 'directories',
    routes: directoriesRoutes(deps),
    syncSources: [directoriesSyncSource, directoryRowsSyncSource(deps)],
  };
};
