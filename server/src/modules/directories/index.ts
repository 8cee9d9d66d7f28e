import type { ModuleFactory } from '../../platform/module';
import { directoriesRoutes } from './directories.routes';

/** Directories: reference tables with row trees, sub-directories bound to parent rows, CSV import/export. */
export const directoriesModule: ModuleFactory = (context) => ({
  name: 'directories',
  routes: directoriesRoutes({ db: context.db }),
});
