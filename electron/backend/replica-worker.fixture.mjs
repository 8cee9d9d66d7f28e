// Worker entry for tests: lets the worker thread load TypeScript, then starts the replica host.
import { register } from 'tsx/esm/api';

register();
await import('./replica-worker.fixture.ts');
